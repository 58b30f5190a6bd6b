"""Judge of proftab's Parquet / Arrow datasets with the real libraries (pyarrow, DuckDB).

    python3 columnar_judge.py CONTAINER DIR [TYPE]

Prints one JSON object: "tables" (rows of every table, each part read by pyarrow), "schema"
(Arrow type of every column), "top" (the function with the largest self value of the default
value type, or of TYPE, by DuckDB SQL) and "top_per_source" (the same per source). Exit
status 3 when pyarrow or duckdb is missing (the Rust test prints SKIP).
"""
import glob
import json
import os
import sys

try:
    import duckdb
    import pyarrow as pa
    import pyarrow.ipc as ipc
    import pyarrow.parquet as pq
except ImportError as e:
    print(f"missing: {e}", file=sys.stderr)
    sys.exit(3)

container, root = sys.argv[1], sys.argv[2]
wanted_type = sys.argv[3] if len(sys.argv) > 3 else None
ext = {"parquet": ".parquet", "arrow": ".arrow"}[container]


def read_part(path):
    if container == "parquet":
        return pq.read_table(path)
    with pa.memory_map(path) as source:
        return ipc.open_file(source).read_all()


con = duckdb.connect()
tables, schema = {}, {}
for folder in sorted(os.listdir(root)):
    parts = sorted(glob.glob(os.path.join(root, folder, "part-*" + ext)))
    if not parts:
        continue
    read = [read_part(p) for p in parts]
    whole = pa.concat_tables(read)
    tables[folder] = whole.num_rows
    schema[folder] = {f.name: str(f.type) for f in whole.schema}
    if container == "parquet":
        # DuckDB's own Parquet reader, over every part.
        pattern = os.path.join(root, folder, "*.parquet")
        con.execute(f"CREATE VIEW {folder} AS SELECT * FROM read_parquet('{pattern}')")
    else:
        con.register(folder, whole)

DEFAULT_TYPE = """
    coalesce(
      (SELECT value FROM meta WHERE key = 'default_sample_type' LIMIT 1),
      (SELECT type FROM (SELECT type, row_number() OVER () AS i FROM value_types)
       ORDER BY i DESC LIMIT 1))
"""

# Self value: a sample's value goes to the function of its innermost frame (depth 1).
TOP = f"""
SELECT f.name, sum(v.value) AS self
FROM sample_values v
JOIN sample_locations sl ON sl.sample_id = v.sample_id AND sl.depth = 1
JOIN locations l ON l.location_id = sl.location_id
JOIN functions f ON f.function_id = l.function_id
WHERE v.type = {'?' if wanted_type else DEFAULT_TYPE}
GROUP BY f.name
ORDER BY self DESC, f.name
LIMIT 1
"""

# docs/columnar.md, "Top functions by self per source over all files".
PER_SOURCE = """
SELECT source_id, source_uri, name, self FROM (
  SELECT s.source_id, src.source_uri, f.name, sum(v.value) AS self,
         row_number() OVER (PARTITION BY s.source_id
                            ORDER BY sum(v.value) DESC, f.name) AS rank
  FROM samples s
  JOIN sources src ON src.source_id = s.source_id
  JOIN sample_values v ON v.sample_id = s.sample_id
  JOIN sample_locations sl ON sl.sample_id = s.sample_id AND sl.depth = 1
  JOIN locations l ON l.location_id = sl.location_id
  JOIN functions f ON f.function_id = l.function_id
  WHERE v.type = ?
  GROUP BY s.source_id, src.source_uri, f.name
)
WHERE rank = 1
ORDER BY source_id
"""

params = [wanted_type] if wanted_type else []
top = con.execute(TOP, params).fetchall()
out = {"tables": tables, "schema": schema, "top": list(top[0]) if top else None}
if wanted_type:
    rows = con.execute(PER_SOURCE, [wanted_type]).fetchall()
    out["top_per_source"] = [list(r) for r in rows]
print(json.dumps(out))
