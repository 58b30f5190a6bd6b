//! The call graph a callgrind file describes: functions, self costs per (function, position)
//! and caller → callee edges with their inclusive costs, each aggregated over the file (all
//! parts, every repetition of a `fn=` block) in order of first appearance.

use crate::hash::HashMap;

/// A position: source line (0 when the file has no line column) and instruction address
/// (when `positions:` names `instr`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) struct Pos {
    pub line: i64,
    pub addr: Option<u64>,
}

/// A function: (name without recursion level, file) is its identity, as callgrind_annotate's
/// `file:function`; `object` is the first `ob=`/`cob=` seen with it.
#[derive(Debug)]
pub(super) struct Func {
    pub name: String,
    pub file: Option<String>,
    pub object: Option<String>,
    /// The function whose invocation this one's code runs in: itself, or for the code of an
    /// inline file (`fi=`), the function of the same name in the `fl=` file.
    pub host: usize,
}

/// Self cost of one function at one position.
#[derive(Debug)]
pub(super) struct SelfCost {
    pub func: usize,
    pub pos: Pos,
    /// One cost per event, up to the last one a cost line gave (the others are 0).
    pub costs: Vec<i64>,
}

/// Calls from `caller` at `pos` to `callee`: how many and their inclusive costs.
#[derive(Debug)]
pub(super) struct Edge {
    pub caller: usize,
    pub pos: Pos,
    pub callee: usize,
    pub calls: u64,
    /// As [`SelfCost::costs`]: up to the last event a cost line gave.
    pub inclusive: Vec<i64>,
}

/// The aggregated graph.
#[derive(Debug, Default)]
pub(super) struct Graph {
    pub funcs: Vec<Func>,
    pub selfs: Vec<SelfCost>,
    pub edges: Vec<Edge>,
    func_ids: HashMap<(String, Option<String>), usize>,
    self_ids: HashMap<(usize, Pos), usize>,
    edge_ids: HashMap<(usize, Pos, usize), usize>,
}

/// Adds `costs` to `sum` cell by cell (saturating: costs beyond `i64` are not meaningful),
/// lengthening `sum` to `costs` (a missing cost is 0).
fn add_costs(sum: &mut Vec<i64>, costs: &[i64]) {
    if sum.len() < costs.len() {
        sum.resize(costs.len(), 0);
    }
    for (s, c) in sum.iter_mut().zip(costs) {
        *s = s.saturating_add(*c);
    }
}

impl Graph {
    /// The id of function `name` in `file`, added when new (keeping `object` for it).
    pub fn func(&mut self, name: &str, file: Option<&str>, object: Option<&str>) -> usize {
        let key = (name.to_owned(), file.map(str::to_owned));
        if let Some(&id) = self.func_ids.get(&key) {
            return id;
        }
        let id = self.funcs.len();
        self.funcs.push(Func {
            name: key.0.clone(),
            file: key.1.clone(),
            object: object.map(str::to_owned),
            host: id,
        });
        self.func_ids.insert(key, id);
        id
    }

    /// Makes `host` the host of `func` (when `host` is its own host: no chains).
    pub fn set_host(&mut self, func: usize, host: usize) {
        if self.funcs[host].host == host {
            self.funcs[func].host = host;
        }
    }

    /// Adds self costs of `func` at `pos`.
    pub fn add_self(&mut self, func: usize, pos: Pos, costs: &[i64]) {
        let next = self.selfs.len();
        let id = *self.self_ids.entry((func, pos)).or_insert(next);
        if id == next {
            self.selfs.push(SelfCost {
                func,
                pos,
                costs: Vec::new(),
            });
        }
        add_costs(&mut self.selfs[id].costs, costs);
    }

    /// Adds `calls` calls from `caller` at `pos` to `callee` with their inclusive costs.
    pub fn add_call(&mut self, caller: usize, pos: Pos, callee: usize, calls: u64, costs: &[i64]) {
        let next = self.edges.len();
        let id = *self.edge_ids.entry((caller, pos, callee)).or_insert(next);
        if id == next {
            self.edges.push(Edge {
                caller,
                pos,
                callee,
                calls: 0,
                inclusive: Vec::new(),
            });
        }
        let edge = &mut self.edges[id];
        edge.calls = edge.calls.saturating_add(calls);
        add_costs(&mut edge.inclusive, costs);
    }
}
