//! What a job asks of the nodes, by the rule Slurm's `select/cons_tres` places whole-GPU
//! requests by (one node, whole nodes, or an exact nodes × GPUs shape). Part of the model,
//! not of the cluster: validation's feasibility check asks it as the cluster does
//! (`crate::cluster::placement` places it).

/// What a job asks of the nodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// k GPUs on one node.
    OneNode(u32),
    /// n whole nodes.
    Whole(u32),
    /// n distinct nodes with g GPUs each.
    Exact(u32, u32),
}

impl Shape {
    /// The shape of a request for `gpus` GPUs (optionally `nodes` × `per_node`, 0 = not
    /// given) in a partition whose largest nodes have `max_per_node` GPUs.
    pub fn of(gpus: u32, nodes: u16, per_node: u16, max_per_node: u32) -> Shape {
        if nodes > 0 && per_node > 0 {
            if nodes == 1 {
                return Shape::OneNode(u32::from(per_node));
            }
            return Shape::Exact(u32::from(nodes), u32::from(per_node));
        }
        if gpus <= max_per_node.max(1) {
            Shape::OneNode(gpus)
        } else {
            Shape::Whole(gpus.div_ceil(max_per_node.max(1)))
        }
    }

    /// Nodes the shape needs.
    pub fn nodes(self) -> u32 {
        match self {
            Shape::OneNode(_) => 1,
            Shape::Whole(n) | Shape::Exact(n, _) => n,
        }
    }
}
