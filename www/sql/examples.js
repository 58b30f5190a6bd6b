// The SQL tab's example queries, written for the loaded profile's value types (docs/columnar.md
// explains the tables). Each is [title, sql]; those returning `sample_id` can filter the views.
import { ident, literal } from "./engine.js";

/** Self value: a sample's value goes to the function of its innermost frame (depth 1). */
const SELF_JOIN = `FROM sample_values v
JOIN sample_locations sl ON sl.sample_id = v.sample_id AND sl.depth = 1
JOIN locations l ON l.location_id = sl.location_id
JOIN functions f ON f.function_id = l.function_id`;

/** The examples for value type `type`, a memory type `memory` (or null), a function name
 * `name` and whether the profile has `sample_labels`. */
export function examples({ type, memory, name, labels }) {
  const t = literal(type);
  const list = [
    [
      "Top functions by self",
      `SELECT f.name, sum(v.value) AS self, count(*) AS samples
${SELF_JOIN}
WHERE v.type = ${t}
GROUP BY f.name
ORDER BY self DESC
LIMIT 100`,
    ],
    [
      "Top function per source",
      `SELECT source_id, source_uri, name, self FROM (
  SELECT s.source_id, src.source_uri, f.name, sum(v.value) AS self,
         row_number() OVER (PARTITION BY s.source_id ORDER BY sum(v.value) DESC, f.name) AS rank
  FROM samples s
  JOIN sources src ON src.source_id = s.source_id
  JOIN sample_values v ON v.sample_id = s.sample_id
  JOIN sample_locations sl ON sl.sample_id = s.sample_id AND sl.depth = 1
  JOIN locations l ON l.location_id = sl.location_id
  JOIN functions f ON f.function_id = l.function_id
  WHERE v.type = ${t}
  GROUP BY s.source_id, src.source_uri, f.name
)
WHERE rank <= 5
ORDER BY source_id, self DESC`,
    ],
  ];
  if (labels) {
    list.push([
      "Value per label",
      `SELECT lb.key, coalesce(lb.str, CAST(lb.num AS VARCHAR)) AS label, sum(v.value) AS value, count(*) AS samples
FROM sample_labels lb
JOIN sample_values v ON v.sample_id = lb.sample_id AND v.type = ${t}
GROUP BY ALL
ORDER BY value DESC
LIMIT 100`,
    ]);
  }
  if (memory) {
    list.push([
      "Memory per line",
      `SELECT f.filename, l.line, f.name, sum(v.value) AS ${ident(memory)}
${SELF_JOIN}
WHERE v.type = ${literal(memory)}
GROUP BY ALL
ORDER BY 4 DESC
LIMIT 100`,
    ]);
  }
  list.push(
    [
      "Samples through a function (show as flame graph)",
      `SELECT DISTINCT sl.sample_id
FROM sample_locations sl
JOIN locations l ON l.location_id = sl.location_id
JOIN functions f ON f.function_id = l.function_id
WHERE f.name = ${literal(name)}`,
    ],
    [
      "The 100 heaviest samples (show as flame graph)",
      `SELECT sample_id, value
FROM sample_values
WHERE type = ${t}
ORDER BY value DESC
LIMIT 100`,
    ],
    ["The tables and their columns", "SELECT table_name, column_name, data_type FROM information_schema.columns ORDER BY ALL"],
  );
  return list;
}
