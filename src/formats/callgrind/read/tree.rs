//! The call tree reconstructed from the call graph, as speedscope's callgrind importer does
//! it: every function's total weight (self plus the inclusive costs of its calls) flows from
//! the roots (functions with more weight than their callers give them) down the call edges,
//! each call receiving the caller's share of its inclusive cost. The weights are those of the
//! first event.
//!
//! Unlike speedscope, self costs stay exact: a function's self cost at each position is split
//! among the tree nodes where the function appears in proportion to their weights, with
//! integer shares that add up to the cost (cumulative rounding). Recursive calls (a callee
//! already on the path) are not expanded; functions the walk never reaches keep their self
//! cost as root samples.

use super::graph::{Edge, Graph};
use crate::model::StackIndex;

/// Most nodes of the reconstructed tree; past it no node is expanded further (the self costs
/// of functions not reached stay in root samples).
pub(super) const MAX_TREE_NODES: usize = 200_000;

/// One node of the tree: function `func` called along `prefix` (the callers' call sites),
/// with its share `weight` of the function's total.
pub(super) struct Node {
    pub func: usize,
    pub prefix: Option<StackIndex>,
    pub weight: f64,
}

/// What the walk cut short, for warnings.
#[derive(Default)]
pub(super) struct Cuts {
    pub recursive_edges: usize,
    pub too_deep: usize,
    pub node_limit: bool,
}

/// The weight of a function's cost of the first event (negative costs weigh nothing).
fn weight(costs: &[i64]) -> f64 {
    costs.first().map_or(0.0, |c| (*c).max(0) as f64)
}

/// The function whose invocation `func`'s code runs in (see `Func::host`): the tree has
/// nodes for hosts only.
pub(super) fn host(graph: &Graph, func: usize) -> usize {
    graph.funcs[func].host
}

/// Per function: total weight (self + calls to others) and weight received from callers.
fn totals(graph: &Graph) -> (Vec<f64>, Vec<f64>) {
    let n = graph.funcs.len();
    let (mut total, mut incoming) = (vec![0.0; n], vec![0.0; n]);
    for s in &graph.selfs {
        total[host(graph, s.func)] += weight(&s.costs);
    }
    for e in &graph.edges {
        let (caller, callee) = (host(graph, e.caller), host(graph, e.callee));
        if caller != callee {
            total[caller] += weight(&e.inclusive);
            incoming[callee] += weight(&e.inclusive);
        }
    }
    (total, incoming)
}

/// A step of the depth-first walk. The call-site stack node of an entered call is made only
/// when the call is entered (`via`: the caller's stack node and the edge), so that pending
/// calls cut by the node limit cost nothing; the pending steps are at most the edges of the
/// functions on the current path.
enum Step {
    Enter {
        func: usize,
        weight: f64,
        via: Option<(Option<StackIndex>, usize)>,
        depth: usize,
    },
    Leave(usize),
}

/// Walks the graph from its roots. `call_site` gives the stack node of a caller's call site
/// below a prefix (it interns the location and the node).
pub(super) fn walk(
    graph: &Graph,
    max_depth: usize,
    mut call_site: impl FnMut(Option<StackIndex>, &Edge) -> StackIndex,
) -> (Vec<Node>, Cuts) {
    let (total, incoming) = totals(graph);
    let mut out_edges: Vec<Vec<usize>> = vec![Vec::new(); graph.funcs.len()];
    for (i, e) in graph.edges.iter().enumerate() {
        out_edges[host(graph, e.caller)].push(i);
    }
    let mut todo: Vec<Step> = (0..graph.funcs.len())
        .rev()
        .filter(|&f| total[f] - incoming[f] > 0.0)
        .map(|f| Step::Enter {
            func: f,
            weight: total[f] - incoming[f],
            via: None,
            depth: 1,
        })
        .collect();
    let mut on_path = vec![0u32; graph.funcs.len()];
    let mut nodes = Vec::new();
    let mut cuts = Cuts::default();
    while let Some(step) = todo.pop() {
        let (func, w, prefix, depth) = match step {
            Step::Leave(f) => {
                on_path[f] -= 1;
                continue;
            }
            Step::Enter {
                func,
                weight,
                via,
                depth,
            } => (func, weight, via, depth),
        };
        if nodes.len() >= MAX_TREE_NODES {
            cuts.node_limit = true;
            break;
        }
        let prefix = prefix.map(|(caller, edge)| call_site(caller, &graph.edges[edge]));
        nodes.push(Node {
            func,
            prefix,
            weight: w,
        });
        on_path[func] += 1;
        todo.push(Step::Leave(func));
        let ratio = if total[func] > 0.0 {
            w / total[func]
        } else {
            0.0
        };
        for &i in out_edges[func].iter().rev() {
            let e = &graph.edges[i];
            let callee = host(graph, e.callee);
            if e.inclusive.iter().all(|c| *c == 0) {
                continue;
            }
            if on_path[callee] > 0 {
                cuts.recursive_edges += 1;
                continue;
            }
            if depth >= max_depth {
                cuts.too_deep += 1;
                continue;
            }
            todo.push(Step::Enter {
                func: callee,
                weight: weight(&e.inclusive) * ratio,
                via: Some((prefix, i)),
                depth: depth + 1,
            });
        }
    }
    (nodes, cuts)
}

/// Integer shares of `value` for nodes whose weights sum to `total`: the node whose cumulative
/// weight runs from `before` to `after` gets `round(v·after/total) − round(v·before/total)`,
/// so the shares of all nodes add up to `value` exactly.
pub(super) fn share(value: i64, before: f64, after: f64, total: f64) -> i64 {
    if value == 0 || total <= 0.0 {
        return 0;
    }
    let v = value as f64;
    let end = if after >= total {
        value
    } else {
        (v * after / total).round() as i64
    };
    let start = if before <= 0.0 {
        0
    } else {
        (v * before / total).round() as i64
    };
    end - start
}

#[cfg(test)]
mod tests {
    use super::share;

    #[test]
    fn shares_add_up() {
        let weights = [0.3, 1.7, 0.0, 2.9, 5.1];
        let total: f64 = weights.iter().sum();
        for value in [0, 1, 7, 1_000_003, -13] {
            let mut cum = 0.0;
            let mut sum = 0;
            for w in weights {
                sum += share(value, cum, cum + w, total);
                cum += w;
            }
            assert_eq!(sum, value);
        }
    }
}
