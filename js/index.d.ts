// Types of the proftab npm package (the same API in Node >= 18 and in browsers).
//
//   import { Profile } from "proftab";
//   const p = Profile.parse(bytes, "cpu.pb.gz");
//   p.format; p.numSamples; p.info();
//   const names = p.strings(), fnName = p.functionName();
//   const out = p.write("collapsed");
//   p.free();
//
// The tables are the v2 relational profile tables (docs/model.md) stored struct-of-arrays: every
// column method returns a fresh COPY (safe to keep; later calls cannot invalidate it).
// Encodings:
//   - row references are 0-based rows of the referenced table, NO_INDEX when absent; the
//     logical ids of docs/model.md are row + 1;
//   - text cells are indices into strings(), whose entry 0 is null (NA);
//   - int cells use INT_NA for NA, dbl cells NaN.

/** In Uint32Array row-reference columns: "no row" (0xFFFFFFFF). */
export declare const NO_INDEX: number;
/** In Int32Array columns: NA (-2147483648, as R stores int NA). */
export declare const INT_NA: number;

/** A recoverable oddity reported by a reader or writer; `count` says how often it happened. */
export interface Warning {
  format: string;
  message: string;
  count: number;
}

/** What `Profile.writeWithWarnings` returns: the file and what it could not hold. */
export interface WriteResult {
  bytes: Uint8Array;
  warnings: Warning[];
}

/** One value type of `sample_values`. */
export interface ValueType {
  /** The `type` name, e.g. "samples", "cpu", "alloc_space". */
  type: string;
  /** The unit, e.g. "count", "nanoseconds", "bytes". */
  unit: string;
  /** Sum of the values of all samples that have one. */
  total: number;
  /** Number of samples that have a value of this type (`sample_values` rows). */
  rows: number;
}

/** One row of `sources`. */
export interface SourceInfo {
  /** The format the source was read from. */
  type: string;
  /** The file name given to `Profile.parse`, or null. */
  uri: string | null;
  /** Seconds since the Unix epoch, or null when unknown. */
  timestamp: number | null;
}

export type ColumnKind = "int" | "dbl" | "chr" | "lgl" | "u64";

/** A table and its row count; `extColumns` are its extension columns. */
export interface TableInfo {
  /** The seven v2 tables (meta, sources, samples, sample_values, sample_locations, locations,
   * functions), then extension tables such as "mappings". */
  name: string;
  rows: number;
  extColumns: { name: string; kind: ColumnKind }[];
}

/** The summary returned by `Profile.info()`. */
export interface Info {
  format: string;
  sources: SourceInfo[];
  samples: number;
  valueTypes: ValueType[];
  /** Meta `default_sample_type` when it names a type, else the last type; null without types. */
  defaultValueType: string | null;
  tables: TableInfo[];
  /** `meta` rows as [key, value]. */
  meta: [string, string][];
  warnings: Warning[];
}

/** A format proftab knows, and whether it can read and write it in this build. */
export interface FormatInfo {
  /** The name used by `Profile.write` and the CLI's `--to`. */
  name: string;
  read: boolean;
  write: boolean;
  /** File name endings that imply the format for output. */
  extensions: string[];
}

/** An extension column returned by `Profile.extColumn`. */
export type ExtColumn =
  | { kind: "int"; data: Int32Array }
  | { kind: "dbl"; data: Float64Array }
  /** String ids into strings(). */
  | { kind: "chr"; data: Uint32Array }
  /** 1 true, 0 false, -1 NA. */
  | { kind: "lgl"; data: Int8Array }
  /** `present[i]` is 1 where cell i has a value (data[i] is 0n otherwise). */
  | { kind: "u64"; data: BigUint64Array; present: Uint8Array };

/** Options of `Profile.parseWith`. */
export interface ParseOptions {
  /** Binaries for the symbols of a perf.data: `name` is the file name (or path). */
  binaries?: { name: string; bytes: Uint8Array }[];
  /** The recording machine's `/proc/kallsyms` (text or bytes), for a perf.data's kernel frames. */
  kallsyms?: string | Uint8Array;
  /** Replaces the limits on compressed input (1 GiB; 300 times the compressed size past 64 MiB). */
  maxDecompressedBytes?: number;
}

/** A parsed profile held in WebAssembly memory. Call `free()` when done with it. */
export declare class Profile {
  private constructor();

  /**
   * Reads `bytes` in whatever format their content shows (never by file name). `fileName`
   * goes into `sources.source_uri`. Throws an `Error` whose message names the format, the
   * place (byte offset, line or path) and the problem.
   *
   * Compressed input (gzip, zstd, bzip2) is recognised on its first decompressed MiB and
   * refused there when it is no profile; a profile is inflated up to 1 GiB and, past 64 MiB,
   * at most 300 times its compressed size (`parseWith`'s `maxDecompressedBytes` replaces both
   * limits).
   *
   * The read runs in wasm calls that return (bytes fed in 1 MiB chunks, a pprof profile's
   * samples 16,384 at a time), so V8 can run it in optimised code; a `Uint8Array` (or Node
   * `Buffer`) is read so, anything else in one call. The result is the same either way.
   */
  static parse(bytes: Uint8Array, fileName?: string | null): Profile;
  /**
   * As `parse`, with options. `binaries`: the ELF files (executables, shared libraries,
   * `.debug` files) that symbolise a perf.data, matched as `proftab --symbols DIR` matches
   * them: by build-id, then by file name. Frames of binaries not given stay `name+0xOFFSET`;
   * a warning counts them and names those binaries with their build-ids. `kallsyms`: the
   * recording machine's `/proc/kallsyms` of that boot (a kallsyms text among `binaries` is
   * taken too), which names kernel frames; one of another boot or kernel build (told by the
   * addresses of `_text` and `_etext`) is not used, and the warning says why. A compressed
   * perf.data (gzip, zstd, bzip2) gets the same. Ignored for other formats. Throws when
   * `binaries` is not an array of `{name, bytes}` or `kallsyms` is not a kallsyms text.
   */
  static parseWith(bytes: Uint8Array, fileName: string | null | undefined, options: ParseOptions): Profile;
  /** Every format proftab knows. */
  static formats(): FormatInfo[];

  /** Releases the wasm memory of this profile; the object is unusable afterwards. */
  free(): void;
  [Symbol.dispose](): void;

  /** The format the profile was read from ("pprof", "rprof", …). */
  readonly format: string;
  /** Number of samples (rows of `samples`). */
  readonly numSamples: number;

  /** The reader's warnings. */
  warnings(): Warning[];
  /** A small summary: sources, value types with totals, table row counts, meta, warnings. */
  info(): Info;
  /** The string table: entry i is the text of string id i; entry 0 is null (NA). */
  strings(): (string | null)[];
  /** `meta` rows as [key, value], in order. */
  meta(): [string, string][];
  /** The v2 rules the tables break, one message each (e.g. `functions.name row 3 (value ""):
   * must not be empty`); empty when valid. */
  validate(): string[];

  /** `sources.source_type` (string ids). */
  sourceType(): Uint32Array;
  /** `sources.source_uri` (string ids, 0 = NA). */
  sourceUri(): Uint32Array;
  /** `sources.source_timestamp` (epoch seconds, NaN unknown). */
  sourceTimestamp(): Float64Array;

  /** `samples.source_id` as rows of `sources`. */
  sampleSource(): Uint32Array;
  /** Each sample's innermost stack node (row of the stack table), NO_INDEX without frames. */
  sampleStack(): Uint32Array;

  /** Stack table (call-path prefix tree): caller node of each node, NO_INDEX for outermost
   * frames; always prefix[i] < i. `sample_locations` of a sample is the walk from its
   * stack node along prefix (depth 1 = innermost). */
  stackPrefix(): Uint32Array;
  /** The location (row of `locations`) of each stack node. */
  stackLocation(): Uint32Array;
  /** Frames from the root to each node, inclusive (roots have 1). */
  stackDepth(): Uint32Array;

  /** `locations.function_id` as rows of `functions`, NO_INDEX for NA. */
  locationFunction(): Uint32Array;
  /** `locations.line` (0 unknown, INT_NA NA). */
  locationLine(): Int32Array;

  /** `functions.name` (string ids). */
  functionName(): Uint32Array;
  /** `functions.system_name` (string ids). */
  functionSystemName(): Uint32Array;
  /** `functions.filename` (string ids). */
  functionFilename(): Uint32Array;
  /** `functions.start_line` (0 unknown, INT_NA NA). */
  functionStartLine(): Int32Array;

  /** The value types in order, with totals. */
  valueTypes(): ValueType[];
  /** One value per sample for the value type named `valueType`, NaN where a sample has none.
   * Throws when there is no such type. */
  values(valueType: string): Float64Array;
  /** An extension column of "samples", "locations", "functions", "sources" (names start with
   * a dot, e.g. ".time", ".address", ".frame_type") or of an extension table ("mappings", …);
   * undefined when there is no such column. */
  extColumn(table: string, name: string): ExtColumn | undefined;

  /** The profile in `format` (a name from `formats()`). `valueType` picks the value type for
   * formats that hold one (default: the default value type); `sourceId` (1-based) writes only
   * that source's samples, for formats that hold one run (Rprof). Throws when it cannot be
   * written. */
  write(format: string, valueType?: string | null, sourceId?: number | null): Uint8Array;
  /** As `write`, with what the format could not hold: the writer's own warnings, then one
   * warning per kind of thing `format` cannot hold that the profile has (value types beyond the
   * written one, sample labels, lines, columns, file names, sample times, samples summed by
   * stack, sources, addresses, inlined frames, extension columns / tables / meta keys), its
   * `message` naming what was dropped and `count` how many samples, locations, functions,
   * values or keys it affects. None for what the profile does not have; none for
   * `tables-json`. E.g. a labelled pprof as `collapsed`:
   * `{ format: "collapsed", message: "cannot hold sample labels: dropped 11 labels on 11
   * samples of 121 (keys: api)", count: 11 }`. */
  writeWithWarnings(format: string, valueType?: string | null, sourceId?: number | null): WriteResult;

  /** Self and total per source line of every function whose name `pattern` (a regular
   * expression) matches, as `proftab list` computes them, for the value type named
   * `valueType` (default: the profile's default value type). On the stacks as read: call
   * `pruned()` first for the stacks `go tool pprof` shows. Throws on a bad pattern or an
   * unknown value type. */
  sourceLines(pattern: string, valueType?: string | null): SourceLines;

  /** A new Profile with the stacks `go tool pprof` shows: a pprof file's `drop_frames` /
   * `keep_frames` (meta `pprof.profile.drop_frames` / `keep_frames`) applied, or an unchanged
   * copy when it has none. An expression that does not compile prunes nothing and adds a
   * warning. This profile keeps the raw stacks. Free both. */
  pruned(): Profile;

  /**
   * The profile as Apache Arrow IPC, one file per table: the seven v2 tables, the extension
   * tables (e.g. "mappings", "sample_labels"), "column_types" and "value_types", in document
   * order, with the columns and types of `proftab convert --to arrow` (docs/columnar.md;
   * strings dictionary-encoded, u64 addresses uint64, NA as null). `tableFromIPC` of npm
   * `apache-arrow` reads each; the bytes are those of the CLI's `part-00000.arrow` files.
   * `stream: true` gives the IPC stream format instead (DuckDB-wasm's
   * `insertArrowFromIPCStream` takes it). The first call loads the package's second wasm
   * module (pkg/columnar-*); the main module never holds the Arrow code.
   */
  toArrow(options?: { stream?: boolean }): Promise<Record<string, Uint8Array>>;
  /** As `toArrow`, Parquet files (snappy pages, dictionary-encoded strings). */
  toParquet(): Promise<Record<string, Uint8Array>>;
  /**
   * The profile of `toArrow`'s tables (IPC file or stream format), as the CLI reads a dataset
   * directory: its tables-JSON equals the original's. Throws when a file is no Arrow IPC, a
   * column has a type proftab does not read, or the tables break a v2 rule; the message names
   * the table. `format` is "tables-json". Unknown tables are dropped with a warning.
   */
  static fromArrow(tables: Record<string, Uint8Array>): Promise<Profile>;
  /** As `fromArrow`, from `toParquet`'s tables. */
  static fromParquet(tables: Record<string, Uint8Array>): Promise<Profile>;
}

/** `Profile.sourceLines()`: `proftab list` as typed columns, one row per function (by name,
 * then file) and one per line of a function (by function, then line number). */
export interface SourceLines {
  valueType: string;
  unit: string;
  /** The value of all samples. */
  total: number;
  functionName: string[];
  /** The function's file as the profile names it ("" when unknown). */
  functionFile: string[];
  /** The function's first line (0 unknown). */
  functionStartLine: Int32Array;
  /** Sum of the function's lines' self. */
  functionSelf: Float64Array;
  /** Value of the samples with the function at a line anywhere in the stack, once each. */
  functionTotal: Float64Array;
  /** The row of the function columns each line belongs to. */
  lineFunction: Uint32Array;
  line: Int32Array;
  /** Value of the samples whose innermost frame at a line is this line of the function. */
  lineSelf: Float64Array;
  /** Value of the samples with this line of the function in the stack, once each. */
  lineTotal: Float64Array;
}

/** Every format proftab knows (same as `Profile.formats()`). */
export declare function formats(): FormatInfo[];
