//! Faults of the wasm instance, seen from JavaScript. A panic aborts (a wasm trap, after which
//! the instance must not be used again): [`record_panics`] makes its message readable from
//! JavaScript first, so that the viewer's worker can say what failed before it is replaced.
//! [`fault_for_tests`] forces such faults; only the viewer's test build calls it.
//! [`memory_bytes`] tells how large the instance's memory has grown (it never shrinks).

use std::alloc::{handle_alloc_error, Layout};

use wasm_bindgen::prelude::*;

/// The global property (of the worker or window) that holds the last panic's message.
pub const PANIC_GLOBAL: &str = "proftabPanic";

/// Installs a panic hook that stores the panic's message and place in the global
/// `proftabPanic` (a string) before the instance aborts. Idempotent.
#[wasm_bindgen(js_name = recordPanics)]
pub fn record_panics() {
    std::panic::set_hook(Box::new(|info| {
        let _ = js_sys::Reflect::set(
            &js_sys::global(),
            &JsValue::from_str(PANIC_GLOBAL),
            &JsValue::from_str(&info.to_string()),
        );
    }));
}

/// Forces a fault of the instance, as a bug or an exhausted memory would: `"panic"` panics,
/// `"oom"` takes the path of a failed allocation (the allocation error handler, which aborts
/// without a panic message). Any other `kind` returns. For the viewer's test build
/// only (`dist-test/`): the instance is unusable afterwards.
#[wasm_bindgen(js_name = faultForTests)]
pub fn fault_for_tests(kind: &str) {
    match kind {
        #[allow(clippy::panic)] // the point: a panic, as a reader bug would cause
        "panic" => panic!("a fault forced by a test"),
        "oom" => handle_alloc_error(Layout::new::<[u8; 1 << 30]>()),
        _ => {}
    }
}

/// The size of this instance's wasm memory in bytes: every page it has grown to, touched or
/// not. For tests and diagnostics (the npm tests count the grows of a read with it).
#[wasm_bindgen(js_name = memoryBytes)]
pub fn memory_bytes() -> f64 {
    (core::arch::wasm32::memory_size(0) as f64) * 65536.0
}
