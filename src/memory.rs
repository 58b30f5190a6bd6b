//! Room in wasm linear memory made in one step before a reader's many allocations.
//!
//! A wasm module's memory grows by `memory.grow`, and Rust's allocator there (dlmalloc) grows
//! it only when a request does not fit, by just what that request needs. A pprof read of
//! 500,000 samples thus grew memory 26 times while it read the samples (the sample columns,
//! each doubling of the stack columns and of the node table, the stack table's reservation).
//! In V8 each grow costs about the same whatever its size: 0.2–0.9 ms in Node 20 here (200
//! grows of 1 MiB took 38–174 ms in small scripts), and V8 counts the new memory as external
//! memory, which starts full garbage collections (7 in a Node process that parses
//! synth-500k, 2 with the pprof reader's room: `node --trace-gc`).
//!
//! [`make_room`] asks for one block of the size the caller expects to allocate and frees it at
//! once: memory grows once, and the allocations that follow are cut from the freed block.
//! Pages of the block that nothing writes are never touched (no page faults, no resident
//! memory), but they count in the memory's size, which never shrinks: callers ask for what
//! they expect to use.
//!
//! Natively the allocator maps large blocks separately and returns them when freed, so a
//! block freed at once would give nothing: there [`make_room`] does nothing.

/// Room for the allocator's own bookkeeping between the blocks cut from the room (chunk
/// headers, alignment): one wasm page.
const BOOKKEEPING: usize = 1 << 16;

/// Makes room for about `bytes` of allocations to follow (wasm only; see the module doc).
/// Never fails: when memory cannot grow by that much, it leaves it as it is.
pub fn make_room(bytes: usize) {
    if cfg!(target_arch = "wasm32") {
        let mut block: Vec<u8> = Vec::new();
        let _ = block.try_reserve_exact(bytes.saturating_add(BOOKKEEPING));
        // Kept from being optimised away: an allocation nothing uses may be removed.
        std::hint::black_box(&mut block);
    }
}
