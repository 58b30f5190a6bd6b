//! Tests of the record walk (records.rs): the crate's records in the crate's order, chunked
//! reads equal to the in-memory one, cut and garbage streams.

use super::*;
use linux_perf_data::{PerfFileReader, PerfFileRecord};
use std::io::Cursor;

/// A record as handed out: type, misc, body, event.
type Seen = (u32, u16, Vec<u8>, Option<usize>);

fn fixture(name: &str) -> Vec<u8> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/perf-data/");
    std::fs::read(format!("{dir}{name}")).expect("fixture")
}

/// The walk of `input` (a whole recording), in memory or read `chunk` bytes at a time.
fn walked(input: &[u8], chunk: Option<usize>) -> (Vec<Seen>, Option<String>) {
    walked_cut(input, input.len(), chunk)
}

/// [`walked`] with the stream cut at byte `cut` of the input (its header read whole).
fn walked_cut(input: &[u8], cut: usize, chunk: Option<usize>) -> (Vec<Seen>, Option<String>) {
    let pipe = input.get(8) == Some(&16);
    let (start, mut walk) = if pipe {
        pipe_walk(input, false)
    } else {
        file_walk(input, false).expect("data section")
    };
    let file = match pipe {
        true => PerfFileReader::parse_pipe(Cursor::new(input)),
        false => PerfFileReader::parse_file(Cursor::new(input)),
    };
    let file = file.expect("header").perf_file;
    walk.simpleperf = false;
    let attrs = Attrs::new(file.event_attributes(), Endianness::LittleEndian);
    let mut stream = &input[start..cut];
    let mut window = match chunk {
        None => Window::Memory(stream),
        Some(n) => Window::reader(&mut stream, n),
    };
    let mut seen = Vec::new();
    let result = super::walk(&walk, &mut window, &attrs, &mut |r| {
        seen.push((r.kind.0, r.misc, r.body.to_vec(), r.attr.map(|a| a.0)));
        Ok(())
    });
    let error = result.err().map(|stop| match stop {
        Stop::Failed(e) => e.to_string(),
        Stop::Compressed => "compressed".to_owned(),
    });
    (seen, error)
}

/// What `linux-perf-data`'s own iterator hands out for `input`.
fn crate_records(input: &[u8]) -> Vec<Seen> {
    let pipe = input.get(8) == Some(&16);
    let reader = match pipe {
        true => PerfFileReader::parse_pipe(Cursor::new(input)),
        false => PerfFileReader::parse_file(Cursor::new(input)),
    };
    let PerfFileReader {
        mut perf_file,
        mut record_iter,
    } = reader.expect("header");
    let mut out = Vec::new();
    while let Some(r) = record_iter.next_record(&mut perf_file).expect("record") {
        out.push(match r {
            PerfFileRecord::EventRecord { attr_index, record } => (
                record.record_type.0,
                record.misc,
                record.data.as_slice().to_vec(),
                Some(attr_index),
            ),
            PerfFileRecord::UserRecord(u) => (
                RecordType::from(u.record_type).0,
                u.misc,
                u.data.as_slice().to_vec(),
                None,
            ),
        });
    }
    out
}

#[test]
fn hands_out_what_the_crate_does_in_its_order() {
    for name in ["fp.data", "pipe.data", "multi.data", "dwarf.data"] {
        let input = fixture(name);
        let (seen, error) = walked(&input, None);
        assert_eq!(error, None, "{name}");
        assert!(seen.len() > 20, "{name}");
        assert!(seen == crate_records(&input), "{name}: records differ");
    }
}

#[test]
fn chunks_of_any_size_give_the_records_read_in_memory() {
    for name in ["fp.data", "pipe.data", "multi.data"] {
        let input = fixture(name);
        let whole = walked(&input, None);
        // Chunks smaller than a header, than a record, and not a multiple of 8: records
        // straddle every boundary.
        for chunk in [1, 7, 13, 100, 4096, 1 << 20] {
            assert!(
                walked(&input, Some(chunk)) == whole,
                "{name}, chunks of {chunk}"
            );
        }
    }
}

#[test]
fn cut_streams_give_the_same_records_and_error_in_chunks() {
    let input = fixture("fp.data");
    let (start, _) = file_walk(&input, false).expect("data section");
    for cut in [
        start,
        start + 3,
        start + 8,
        start + 9,
        start + 1000,
        start + 5001,
    ] {
        let whole = walked_cut(&input, cut, None);
        assert!(
            whole.1.is_some(),
            "cut at {cut}: a file cut in its data is an error"
        );
        for chunk in [5, 64, 4096] {
            assert!(
                walked_cut(&input, cut, Some(chunk)) == whole,
                "cut at {cut}"
            );
        }
    }
    let (_, error) = walked_cut(&input, start + 3, None);
    assert_eq!(
        error.as_deref(),
        Some("perf-data: I/O error: failed to fill whole buffer")
    );
}

#[test]
fn a_pipe_stream_cut_ends_where_its_last_whole_record_ends() {
    let input = fixture("pipe.data");
    let (all, _) = walked(&input, None);
    let (seen, error) = walked_cut(&input, input.len() - 5, Some(64));
    assert_eq!(error, None);
    assert!(!seen.is_empty() && seen.len() < all.len());
}

#[test]
fn garbage_records_are_errors_never_panics() {
    let input = fixture("fp.data");
    let (start, walk) = file_walk(&input, false).expect("data section");
    // A record size under the header's own size.
    let mut small = input.clone();
    small[start + 6..start + 8].copy_from_slice(&4u16.to_le_bytes());
    let (_, error) = walked(&small, Some(16));
    assert_eq!(
        error.as_deref(),
        Some(
            "perf-data: The specified size in the perf event header was smaller than the \
             header itself"
        )
    );
    // Bytes flipped all over the data section: whatever the walk says, both windows say
    // it, and nothing panics.
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    for round in 0..40 {
        let mut bad = input.clone();
        for _ in 0..1 + round % 8 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let at = start + (state as usize) % walk.data_end;
            bad[at] ^= (state >> 32) as u8 | 1;
        }
        assert!(
            walked(&bad, None) == walked(&bad, Some(37)),
            "round {round}"
        );
    }
}
