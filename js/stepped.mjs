// `Profile.parse` of the npm package in calls that return (src/wasm_stream.rs's
// `ProfileStream`): the bytes are fed to wasm in chunks (a gzip file is inflated as they
// arrive; the input is never copied into wasm whole) and a pprof profile's samples are read a
// budget at a time. V8 runs a long wasm call to its end in the baseline code it started with,
// so one call for a whole large profile ran mostly unoptimised; from the second step on, the
// hot functions can run tiered up. The result is the whole read's: the same profile and warnings.

/** Bytes fed to wasm per call. */
const CHUNK_BYTES = 1 << 20;
/** Samples read per step (a pprof profile; other formats are read whole at the first step). */
const STEP_SAMPLES = 16384;

/** The last four bytes of `bytes` as a little-endian number (a gzip file's ISIZE), if any. */
function tailOf(bytes) {
  if (bytes.length < 4) return undefined;
  return new DataView(bytes.buffer, bytes.byteOffset + bytes.length - 4, 4).getUint32(0, true);
}

/**
 * Replaces `Profile.parse` (wasm-bindgen's, one call over the whole bytes) with the stepped
 * read through `ProfileStream`. Inputs that are not a Uint8Array go to the whole read as
 * before; so does a failed stepped read, whose error it then throws (the stepped read can
 * word some errors differently: see src/formats/stream.rs).
 */
export function parseInSteps(Profile, ProfileStream) {
  const whole = Profile.parse;
  Profile.parse = function parse(bytes, fileName) {
    if (!(bytes instanceof Uint8Array)) return whole.call(Profile, bytes, fileName);
    const stream = new ProfileStream(fileName ?? undefined, bytes.length, tailOf(bytes));
    for (let at = 0; at < bytes.length; at += CHUNK_BYTES) {
      stream.feed(bytes.subarray(at, at + CHUNK_BYTES));
    }
    while (!stream.step(STEP_SAMPLES)) {}
    try {
      return stream.finish(); // consumes the stream, also when it throws
    } catch {
      return whole.call(Profile, bytes, fileName);
    }
  };
}
