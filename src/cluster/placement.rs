//! Nodes and where a job's GPUs go, as Slurm's `select/cons_tres` places whole-GPU
//! requests:
//!
//! - a job of k ≤ G GPUs (G = GPUs per node of its partition's largest nodes) runs on one
//!   node, chosen by **best fit**: the fitting node with the fewest free GPUs (ties: the
//!   lowest node index), which keeps whole nodes free for large jobs;
//! - a larger job takes ⌈k / G⌉ **whole nodes** (as with `--exclusive`: every GPU of those
//!   nodes is allocated to it);
//! - a job that asks for a shape (`--nodes=n --gres=gpu:g`) gets n distinct nodes with g
//!   free GPUs each, best fit first.
//!
//! Free GPUs per partition are indexed by free count (a bitset of nodes per count), so
//! best fit is the lowest node of the first non-empty count from k up.

use crate::scenario::NodeGroup;
use crate::scenario::shape::Shape;

/// One node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Node {
    /// GPUs.
    pub gpus: u32,
    /// Free GPUs now.
    pub free: u32,
    /// Partition (index).
    pub partition: u16,
}

/// GPUs taken on each node: `(node, gpus)`.
pub type Allocation = Vec<(u32, u32)>;

/// The nodes of one partition indexed by free GPUs: for each free count a bitset of node
/// indices. Iterating levels upward and bits upward gives `(free, node)` in ascending order,
/// as a `BTreeSet<(free, node)>` would, with O(1) updates (a node's free count changes at
/// every start and end: the B-tree's updates were 7% of a node-model run).
#[derive(Clone, Debug)]
struct FreeIndex {
    /// `levels[f]` = the nodes with `f` free GPUs, as bits of 64-node words.
    levels: Vec<Vec<u64>>,
}

impl FreeIndex {
    fn new(nodes: usize, max_gpus: u32) -> FreeIndex {
        FreeIndex { levels: vec![vec![0; nodes.div_ceil(64).max(1)]; max_gpus as usize + 1] }
    }
    fn insert(&mut self, free: u32, node: u32) {
        self.levels[free as usize][node as usize / 64] |= 1 << (node % 64);
    }
    fn remove(&mut self, free: u32, node: u32) -> bool {
        let w = &mut self.levels[free as usize][node as usize / 64];
        let bit = 1 << (node % 64);
        let was = *w & bit != 0;
        *w &= !bit;
        was
    }
    /// `(free, node)` in ascending order, from `min_free` up.
    fn from(&self, min_free: u32) -> impl Iterator<Item = (u32, u32)> + '_ {
        self.levels.iter().enumerate().skip(min_free as usize).flat_map(move |(f, words)| {
            words.iter().enumerate().flat_map(move |(w, &bits)| {
                let mut bits = bits;
                std::iter::from_fn(move || {
                    if bits == 0 {
                        return None;
                    }
                    let b = bits.trailing_zeros();
                    bits &= bits - 1;
                    Some((f as u32, w as u32 * 64 + b))
                })
            })
        })
    }
}

/// The cluster's nodes and their free GPUs.
#[derive(Clone, Debug)]
pub struct Nodes {
    /// Every node.
    pub nodes: Vec<Node>,
    /// Per partition: its nodes by free GPUs.
    by_free: Vec<FreeIndex>,
    /// Per partition: free GPUs in all its nodes that are up.
    free: Vec<u32>,
    /// Per node: down (failed or drained). A down node is not indexed in `by_free`, so
    /// no placement ever picks it.
    down: Vec<bool>,
}

impl Nodes {
    /// Idle nodes for the node groups, over `partitions` partitions.
    pub fn new(groups: &[NodeGroup], partitions: usize) -> Nodes {
        let mut nodes = Vec::new();
        for g in groups {
            for _ in 0..g.nodes {
                nodes.push(Node { gpus: g.gpus_per_node, free: g.gpus_per_node, partition: g.partition });
            }
        }
        let max_gpus = nodes.iter().map(|n| n.gpus).max().unwrap_or(0);
        let mut by_free = vec![FreeIndex::new(nodes.len(), max_gpus); partitions];
        let mut free = vec![0; partitions];
        for (i, n) in nodes.iter().enumerate() {
            by_free[usize::from(n.partition)].insert(n.free, i as u32);
            free[usize::from(n.partition)] += n.free;
        }
        let down = vec![false; nodes.len()];
        Nodes { nodes, by_free, free, down }
    }

    /// Free GPUs in a partition now.
    pub fn free_in(&self, partition: u16) -> u32 {
        self.free[usize::from(partition)]
    }

    /// The nodes of a partition (indices, ascending).
    pub fn of_partition(&self, partition: u16) -> impl Iterator<Item = u32> + '_ {
        self.nodes.iter().enumerate().filter(move |(_, n)| n.partition == partition).map(|(i, _)| i as u32)
    }

    /// Where the job would go now (best fit), or `None` if it does not fit now.
    pub fn place(&self, partition: u16, shape: Shape) -> Option<Allocation> {
        let set = &self.by_free[usize::from(partition)];
        match shape {
            Shape::OneNode(k) => set.from(k).next().map(|(_, n)| vec![(n, k)]),
            Shape::Exact(n, g) => {
                let picked: Allocation = set.from(g).take(n as usize).map(|(_, node)| (node, g)).collect();
                (picked.len() == n as usize).then_some(picked)
            }
            Shape::Whole(n) => {
                let mut picked: Allocation = set
                    .from(0)
                    .filter(|&(free, node)| free == self.nodes[node as usize].gpus)
                    .take(n as usize)
                    .map(|(free, node)| (node, free))
                    .collect();
                picked.sort_unstable();
                (picked.len() == n as usize).then_some(picked)
            }
        }
    }

    /// [`Nodes::place`] among the nodes `ok` accepts only (the main scheduler's placement
    /// when some nodes are reserved: those whose windows the job would run into are left
    /// out). The same best fit over fewer nodes.
    pub fn place_where(&self, partition: u16, shape: Shape, ok: impl Fn(u32) -> bool) -> Option<Allocation> {
        let set = &self.by_free[usize::from(partition)];
        match shape {
            Shape::OneNode(k) => set.from(k).find(|&(_, n)| ok(n)).map(|(_, n)| vec![(n, k)]),
            Shape::Exact(n, g) => {
                let picked: Allocation =
                    set.from(g).filter(|&(_, node)| ok(node)).take(n as usize).map(|(_, node)| (node, g)).collect();
                (picked.len() == n as usize).then_some(picked)
            }
            Shape::Whole(n) => {
                let mut picked: Allocation = set
                    .from(0)
                    .filter(|&(free, node)| free == self.nodes[node as usize].gpus && ok(node))
                    .take(n as usize)
                    .map(|(free, node)| (node, free))
                    .collect();
                picked.sort_unstable();
                (picked.len() == n as usize).then_some(picked)
            }
        }
    }

    /// Whether the job would fit now: `place(..).is_some()` without building the
    /// allocation (the backfill pass asks this of many jobs).
    pub fn fits(&self, partition: u16, shape: Shape) -> bool {
        let set = &self.by_free[usize::from(partition)];
        match shape {
            Shape::OneNode(k) => set.from(k).next().is_some(),
            Shape::Exact(n, g) => set.from(g).take(n as usize).count() == n as usize,
            Shape::Whole(n) => {
                set.from(0).filter(|&(free, node)| free == self.nodes[node as usize].gpus).take(n as usize).count()
                    == n as usize
            }
        }
    }

    /// Whether the shape could ever fit the partition (all its nodes idle).
    pub fn could_ever_fit(&self, partition: u16, shape: Shape) -> bool {
        let sizes = self.nodes.iter().filter(|n| n.partition == partition).map(|n| n.gpus);
        match shape {
            Shape::OneNode(k) => sizes.into_iter().any(|g| g >= k),
            Shape::Exact(n, g) => sizes.filter(|&s| s >= g).count() >= n as usize,
            Shape::Whole(n) => sizes.count() >= n as usize,
        }
    }

    /// Whether a node is down (failed or drained): it takes no job.
    pub fn is_down(&self, node: u32) -> bool {
        self.down[node as usize]
    }

    /// Takes a node out of (`down`) or back into placement. Its GPUs stay as they are:
    /// a drained node's running jobs go on; a failed node's jobs are given back first.
    pub fn set_down(&mut self, node: u32, down: bool) {
        if self.down[node as usize] == down {
            return;
        }
        let n = self.nodes[node as usize];
        let p = usize::from(n.partition);
        if down {
            let removed = self.by_free[p].remove(n.free, node);
            debug_assert!(removed, "invariant: every node that is up is indexed by its free GPUs");
            self.free[p] -= n.free;
        } else {
            self.by_free[p].insert(n.free, node);
            self.free[p] += n.free;
        }
        self.down[node as usize] = down;
    }

    fn set_free(&mut self, node: u32, free: u32) {
        if self.down[node as usize] {
            self.nodes[node as usize].free = free;
            return;
        }
        let n = &mut self.nodes[node as usize];
        let p = usize::from(n.partition);
        let removed = self.by_free[p].remove(n.free, node);
        debug_assert!(removed, "invariant: every node is indexed by its free GPUs");
        self.free[p] = self.free[p] - n.free + free;
        n.free = free;
        self.by_free[p].insert(free, node);
    }

    /// Takes an allocation's GPUs.
    pub fn take(&mut self, a: &Allocation) {
        for &(node, g) in a {
            let free = self.nodes[node as usize].free;
            debug_assert!(g <= free, "invariant: GPUs in use never exceed a node's GPUs");
            self.set_free(node, free - g);
        }
    }

    /// Gives an allocation's GPUs back.
    pub fn give_back(&mut self, a: &Allocation) {
        for &(node, g) in a {
            let n = self.nodes[node as usize];
            debug_assert!(n.free + g <= n.gpus, "invariant: a node never has more free GPUs than it has");
            self.set_free(node, n.free + g);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The bitset index lists `(free, node)` exactly as a B-tree of the same pairs
        /// would, after any sequence of inserts and removes, from any lower bound.
        #[test]
        fn the_free_index_orders_like_a_btree(
            ops in prop::collection::vec((0u32..130, 0u32..=8, any::<bool>()), 0..400),
            min_free in 0u32..=8,
        ) {
            let mut index = FreeIndex::new(130, 8);
            let mut tree = std::collections::BTreeSet::new();
            for (node, free, insert) in ops {
                if insert {
                    index.insert(free, node);
                    tree.insert((free, node));
                } else {
                    prop_assert_eq!(index.remove(free, node), tree.remove(&(free, node)));
                }
            }
            let listed: Vec<(u32, u32)> = index.from(min_free).collect();
            let expected: Vec<(u32, u32)> = tree.range((min_free, 0)..).copied().collect();
            prop_assert_eq!(listed, expected);
        }
    }

    fn nodes(n: u32, g: u32) -> Nodes {
        let group = NodeGroup {
            name: "t".into(),
            nodes: n,
            gpus_per_node: g,
            gpu_type: "t".into(),
            vram_gb: 80.0,
            partition: 0,
        };
        Nodes::new(&[group], 1)
    }

    #[test]
    fn eight_free_gpus_on_eight_nodes_do_not_start_an_eight_gpu_job() {
        let mut c = nodes(8, 8);
        for i in 0..8 {
            c.take(&vec![(i, 7)]);
        }
        assert_eq!(c.free_in(0), 8);
        assert_eq!(c.place(0, Shape::of(8, 0, 0, 8)), None, "fragmentation: no node has 8 free");
        assert_eq!(c.place(0, Shape::of(1, 0, 0, 8)), Some(vec![(0, 1)]));
    }

    #[test]
    fn a_node_that_is_down_is_never_placed_on() {
        let mut c = nodes(2, 8);
        c.take(&vec![(1, 6)]); // node 1: 2 free, the best fit for 2 GPUs
        c.set_down(1, true);
        assert_eq!(c.free_in(0), 8);
        assert_eq!(c.place(0, Shape::OneNode(2)), Some(vec![(0, 2)]), "node 1 is down");
        c.set_down(0, true);
        assert_eq!(c.place(0, Shape::OneNode(1)), None, "every node is down");
        c.give_back(&vec![(1, 6)]); // its job ended while it was down
        c.set_down(1, false);
        assert_eq!(c.place(0, Shape::of(16, 0, 0, 8)), None, "node 0 is still down");
        assert_eq!(c.place(0, Shape::of(8, 0, 0, 8)), Some(vec![(1, 8)]));
        c.set_down(0, false);
        assert_eq!(c.free_in(0), 16);
    }

    #[test]
    fn best_fit_picks_the_fitting_node_with_the_fewest_free_gpus() {
        let mut c = nodes(3, 8);
        c.take(&vec![(0, 2)]); // node 0: 6 free
        c.take(&vec![(1, 5)]); // node 1: 3 free
        // node 2: 8 free
        assert_eq!(c.place(0, Shape::OneNode(2)), Some(vec![(1, 2)]), "3 free is the tightest fit for 2");
        assert_eq!(c.place(0, Shape::OneNode(4)), Some(vec![(0, 4)]));
        assert_eq!(c.place(0, Shape::OneNode(7)), Some(vec![(2, 7)]));
        // A 12-GPU job takes two whole nodes: only node 2 is whole.
        assert_eq!(c.place(0, Shape::of(12, 0, 0, 8)), None);
        c.give_back(&vec![(0, 2)]);
        assert_eq!(c.place(0, Shape::of(12, 0, 0, 8)), Some(vec![(0, 8), (2, 8)]));
        // A shape of 2 nodes × 3 GPUs: the two tightest fits.
        assert_eq!(c.place(0, Shape::Exact(2, 3)), Some(vec![(1, 3), (0, 3)]));
    }

    #[test]
    fn placing_among_some_nodes_is_best_fit_over_those_alone() {
        let mut c = nodes(4, 8);
        c.take(&vec![(1, 6)]); // node 1: 2 free, the best fit for 2 GPUs
        assert_eq!(c.place_where(0, Shape::OneNode(2), |_| true), c.place(0, Shape::OneNode(2)));
        assert_eq!(c.place_where(0, Shape::OneNode(2), |n| n != 1), Some(vec![(0, 2)]));
        assert_eq!(c.place_where(0, Shape::of(16, 0, 0, 8), |n| n != 0), Some(vec![(2, 8), (3, 8)]));
        assert_eq!(c.place_where(0, Shape::of(16, 0, 0, 8), |n| n > 2), None, "one whole node left");
        assert_eq!(c.place_where(0, Shape::Exact(2, 2), |n| n != 1), Some(vec![(0, 2), (2, 2)]));
    }

    proptest! {
        /// `fits` says exactly whether `place` finds an allocation.
        #[test]
        fn fits_agrees_with_place(
            taken in prop::collection::vec((0u32..6, 0u32..=8), 0..12),
            down in prop::collection::vec(0u32..6, 0..3),
            shapes in prop::collection::vec((0u8..3, 0u32..=9, 0u32..=7), 1..20),
        ) {
            let mut c = nodes(6, 8);
            for (n, g) in taken {
                let g = g.min(c.nodes[n as usize].free);
                c.take(&vec![(n, g)]);
            }
            for n in down {
                c.set_down(n, true);
            }
            for (kind, a, b) in shapes {
                let shape = match kind {
                    0 => Shape::OneNode(a),
                    1 => Shape::Whole(b),
                    _ => Shape::Exact(b, a),
                };
                prop_assert_eq!(c.fits(0, shape), c.place(0, shape).is_some(), "{:?}", shape);
            }
        }
    }
}
