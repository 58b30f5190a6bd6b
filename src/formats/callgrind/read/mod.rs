//! Reading: [`parse`] the lines into a call graph, [`tree::walk`] it into a reconstructed call
//! tree, then emit one sample per (tree node, position of the node's function) with that
//! node's integer share of the function's self costs, one value per event.

mod graph;
mod parse;
mod tree;

use graph::{Edge, Graph, Pos};
use parse::Parsed as Body;
use tree::Node;

use super::{FUNCTION_OBJECT, NAME};
use crate::formats::error::{ReadError, Warnings};
use crate::formats::read_common::{check_sample_limit, finish_parsed, text_input};
use crate::formats::{Format, Parsed, ReadOptions};
use crate::hash::HashMap;
use crate::model::{
    ext, Cell, FunctionIndex, LocationIndex, ProfileBuilder, SourceIndex, StackIndex,
    ValueTypeIndex, META_DEFAULT_TYPE,
};

/// Unit of every event: callgrind costs are counts (of instructions, cache misses, …).
const EVENT_UNIT: &str = "count";

/// Reads a callgrind file.
pub fn read(bytes: &[u8], options: &ReadOptions) -> Result<Parsed, ReadError> {
    let (text, mut warnings) = text_input(bytes, NAME)?;
    let body = parse::parse(&text, &mut warnings)?;
    if body.cost_lines == 0 {
        return Err(ReadError::whole(
            NAME,
            "no cost lines (nothing was measured)",
        ));
    }
    let mut e = Emitter::new(&body, options);
    let (nodes, cuts) = tree::walk(
        &body.graph,
        options.limits.max_stack_depth,
        |prefix, edge| e.call_site(prefix, edge),
    );
    let unreached = e.samples(&nodes)?;
    warn_body(&body, &mut warnings);
    warn_tree(&body.graph, &cuts, unreached, e.bad_lines, &mut warnings);
    warn_totals(&body, &mut warnings);
    finish_parsed(e.b, Format::Callgrind, warnings)
}

/// Interns functions, locations and stack nodes and adds the samples.
struct Emitter<'a> {
    body: &'a Body,
    options: &'a ReadOptions,
    b: ProfileBuilder,
    source: SourceIndex,
    types: Vec<ValueTypeIndex>,
    funcs: Vec<Option<FunctionIndex>>,
    locations: HashMap<(usize, Pos), LocationIndex>,
    bad_lines: usize,
}

impl<'a> Emitter<'a> {
    fn new(body: &'a Body, options: &'a ReadOptions) -> Self {
        let mut b = ProfileBuilder::new();
        let source = b.add_source(NAME, options.source_uri.as_deref(), None);
        let types = body
            .events
            .iter()
            .map(|ev| b.value_type(ev, EVENT_UNIT))
            .collect();
        if let Some(first) = body.events.first() {
            b.set_meta(META_DEFAULT_TYPE, first);
        }
        for (key, value) in &body.headers {
            b.add_meta(key, value);
        }
        Emitter {
            body,
            options,
            b,
            source,
            types,
            funcs: vec![None; body.graph.funcs.len()],
            locations: HashMap::default(),
            bad_lines: 0,
        }
    }

    fn function(&mut self, func: usize) -> FunctionIndex {
        if let Some(f) = self.funcs[func] {
            return f;
        }
        let info = &self.body.graph.funcs[func];
        let f = self.b.function_named(&info.name, info.file.as_deref());
        if let Some(object) = &info.object {
            let id = self.b.intern(object);
            let _ = self
                .b
                .functions_mut()
                .ext
                .set(FUNCTION_OBJECT, f.idx(), Cell::Chr(id));
        }
        self.funcs[func] = Some(f);
        f
    }

    fn location(&mut self, func: usize, pos: Pos) -> LocationIndex {
        if let Some(&l) = self.locations.get(&(func, pos)) {
            return l;
        }
        let f = self.function(func);
        let line = i32::try_from(pos.line)
            .ok()
            .filter(|l| *l >= 0)
            .unwrap_or_else(|| {
                self.bad_lines += 1;
                0
            });
        let l = self.b.add_location(Some(f), line);
        if let Some(addr) = pos.addr {
            self.b
                .set_location_ext(l, ext::locations::ADDRESS, Cell::U64(Some(addr)));
        }
        self.locations.insert((func, pos), l);
        l
    }

    fn call_site(&mut self, prefix: Option<StackIndex>, edge: &Edge) -> StackIndex {
        let loc = self.location(edge.caller, edge.pos);
        self.b.stack_node(prefix, loc)
    }

    /// Adds the self-cost samples of every function over its tree nodes; returns how many
    /// functions with self cost the walk never reached (their costs become root samples).
    fn samples(&mut self, nodes: &[Node]) -> Result<usize, ReadError> {
        let graph: &Graph = &self.body.graph;
        let mut by_func: Vec<Vec<usize>> = vec![Vec::new(); graph.funcs.len()];
        for (i, n) in nodes.iter().enumerate() {
            by_func[n.func].push(i);
        }
        let mut selfs_by_func: Vec<Vec<usize>> = vec![Vec::new(); graph.funcs.len()];
        for (i, s) in graph.selfs.iter().enumerate() {
            selfs_by_func[s.func].push(i);
        }
        let mut unreached = 0;
        for func in 0..graph.funcs.len() {
            if selfs_by_func[func].is_empty() {
                continue;
            }
            let mut placed: Vec<(Option<StackIndex>, f64)> = by_func[tree::host(graph, func)]
                .iter()
                .map(|&i| (nodes[i].prefix, nodes[i].weight))
                .collect();
            if placed.is_empty() {
                unreached += 1;
                placed.push((None, 1.0));
            }
            if placed.iter().all(|(_, w)| *w <= 0.0) {
                placed[0].1 = 1.0;
            }
            self.func_samples(func, &placed, &selfs_by_func[func])?;
        }
        Ok(unreached)
    }

    /// The samples of one function: its self costs split over the places it was called from.
    fn func_samples(
        &mut self,
        func: usize,
        placed: &[(Option<StackIndex>, f64)],
        selfs: &[usize],
    ) -> Result<(), ReadError> {
        let total: f64 = placed.iter().map(|(_, w)| w.max(0.0)).sum();
        let mut before = 0.0;
        let mut shares = Vec::new();
        for &(prefix, w) in placed {
            let after = before + w.max(0.0);
            for &s in selfs {
                let cost = &self.body.graph.selfs[s];
                shares.clear();
                shares.extend(
                    cost.costs
                        .iter()
                        .map(|c| tree::share(*c, before, after, total)),
                );
                if shares.iter().all(|v| *v == 0) {
                    continue;
                }
                check_sample_limit(&self.b, Format::Callgrind, self.options.limits.max_samples)?;
                let loc = self.location(func, cost.pos);
                let node = self.b.stack_node(prefix, loc);
                let sample = self.b.add_sample(self.source, Some(node));
                for (i, vt) in self.types.iter().enumerate() {
                    let v = shares.get(i).copied().unwrap_or(0);
                    self.b.set_value(sample, *vt, v as f64);
                }
            }
            before = after;
        }
        Ok(())
    }
}

/// Warnings about what the body held but the profile does not.
fn warn_body(body: &Body, warnings: &mut Warnings) {
    if body.relative_costs > 0 {
        let n = body.relative_costs;
        warnings.add(NAME, "relative-costs", || {
            format!(
                "{n} costs were written as `*`, `+N` or `-N`, which the specification defines \
                 only for positions; they were read relative to the previous cost line, as \
                 speedscope reads them"
            )
        });
    }
    if body.negative_costs > 0 {
        let n = body.negative_costs;
        warnings.add(NAME, "negative", || {
            format!("{n} negative costs were kept as they are (valgrind writes none)")
        });
    }
}

/// Warnings about the reconstruction.
fn warn_tree(
    graph: &Graph,
    cuts: &tree::Cuts,
    unreached: usize,
    bad_lines: usize,
    warnings: &mut Warnings,
) {
    if !graph.edges.is_empty() {
        let calls: u64 = graph
            .edges
            .iter()
            .map(|e| e.calls)
            .fold(0, u64::saturating_add);
        warnings.add(NAME, "reconstructed", || {
            format!(
                "callgrind records no stacks, only caller → callee edges: the stacks are \
                 reconstructed from the call edges (inclusive costs distributed top-down by the \
                 first event, as speedscope does), so call paths and inclusive costs are \
                 estimates while self costs per function and line are exact; the {} call \
                 edges' call counts ({calls} calls) are not kept",
                graph.edges.len()
            )
        });
    }
    if cuts.recursive_edges > 0 {
        let n = cuts.recursive_edges;
        warnings.add(NAME, "recursion", || {
            format!("{n} recursive calls (a callee already on the path) were not expanded in the reconstructed stacks")
        });
    }
    if cuts.too_deep > 0 {
        let n = cuts.too_deep;
        warnings.add(NAME, "too-deep", || {
            format!("{n} calls past the stack depth limit were not expanded in the reconstructed stacks")
        });
    }
    if cuts.node_limit {
        let max = tree::MAX_TREE_NODES;
        warnings.add(NAME, "tree-limit", || {
            format!("the reconstructed call tree was cut at {max} nodes (the rest of the calls were not expanded)")
        });
    }
    if unreached > 0 {
        warnings.add(NAME, "unreached", || {
            format!("{unreached} functions are not reachable from a root of the call graph; their self costs are samples without callers")
        });
    }
    if bad_lines > 0 {
        warnings.add(NAME, "bad-line", || {
            format!("{bad_lines} positions had a line number outside 0..2^31 and were given line 0")
        });
    }
}

/// A warning when the sums of the samples differ from the file's `totals:` / `summary:`.
fn warn_totals(body: &Body, warnings: &mut Warnings) {
    let Some(stated) = body.totals.as_ref().or(body.summary.as_ref()) else {
        return;
    };
    let mut sums = vec![0i64; body.events.len()];
    for s in &body.graph.selfs {
        for (sum, c) in sums.iter_mut().zip(&s.costs) {
            *sum = sum.saturating_add(*c);
        }
    }
    for (i, (event, sum)) in body.events.iter().zip(&sums).enumerate() {
        let stated = stated.get(i).copied().unwrap_or(0);
        if stated != *sum {
            warnings.add(NAME, "totals", || {
                format!("the self costs of {event} add up to {sum}, the file's totals say {stated}")
            });
        }
    }
}
