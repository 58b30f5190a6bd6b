// Compiled (never run) by types.test.mjs with tsc --strict against the package's
// js/index.d.ts, as a TypeScript user of "proftab" would.
import { type ExtColumn, formats, INT_NA, type Info, NO_INDEX, type ParseOptions, Profile, type SourceLines } from "proftab";

const p: Profile = Profile.parse(new Uint8Array([1, 2, 3]), "x.pb.gz");
const withBinaries: ParseOptions = { binaries: [{ name: "app", bytes: new Uint8Array([0x7f, 0x45]) }] };
const perf: Profile = Profile.parseWith(new Uint8Array([1, 2, 3]), "perf.data", withBinaries);
perf.free();
const withKallsyms: ParseOptions = { binaries: [], kallsyms: "ffffffff81000000 T _text\n" };
Profile.parseWith(new Uint8Array([1, 2, 3]), "perf.data", withKallsyms).free();
const format: string = p.format;
const n: number = p.numSamples;
const info: Info = p.info();
const firstType: string | undefined = info.valueTypes[0]?.type;
const uri: string | null | undefined = info.sources[0]?.uri;
const strings: (string | null)[] = p.strings();
const names: Uint32Array = p.functionName();
const lines: Int32Array = p.locationLine();
const prefix: Uint32Array = p.stackPrefix();
const values: Float64Array = p.values("samples");
const column: ExtColumn | undefined = p.extColumn("locations", ".address");
if (column?.kind === "u64") {
  const addresses: BigUint64Array = column.data;
  const present: Uint8Array = column.present;
  void addresses;
  void present;
}
const bytes: Uint8Array = p.write("collapsed", "samples");
const both = p.writeWithWarnings("pprof");
const warningText: string[] = both.warnings.map((w) => `${w.format}: ${w.message} x${w.count}`);
const readable: string[] = formats()
  .filter((f) => f.read)
  .map((f) => f.name);
const sameList = Profile.formats();
const na: boolean = lines[0] === INT_NA || prefix[0] === NO_INDEX;
const listed: SourceLines = p.sourceLines("^main\\.", "cpu");
const lineSelf: Float64Array = listed.lineSelf;
const ofFunction: string | undefined = listed.functionName[listed.lineFunction[0] ?? 0];
p.free();

// @ts-expect-error numSamples is read-only
p.numSamples = 3;
// @ts-expect-error write takes a format name
p.write(42);
// @ts-expect-error sourceLines takes a pattern
p.sourceLines(/main/);
// @ts-expect-error there is no public constructor
new Profile();

void [format, n, firstType, uri, strings, names, values, bytes, warningText, readable, sameList, na, lineSelf, ofFunction];
