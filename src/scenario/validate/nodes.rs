//! Checks of `[[campus.partitions]]` and `[[campus.node_groups]]`: the partitions with their
//! prices and walltime limits, the node groups and which partition each belongs to, and
//! the GPUs each partition gets from its nodes. The rest of `[campus]` (size, priority,
//! backfill) stays in `validate.rs`, whose `campus` also calls the capacity and accounts
//! checks: here only what needs no other child.

use super::*;

/// The partitions as given, or one implicit partition "campus" with the campus price and
/// walltime limit. (GPU counts are filled in by [`with_nodes`].)
pub(super) fn partitions(c: &RawCampus, price: f64, max_walltime: Option<SimTime>) -> Result<Vec<Partition>> {
    if c.partitions.is_empty() {
        return Ok(vec![Partition {
            name: "campus".into(),
            price_per_gpu_hour_cny: price,
            priority_factor: 1.0,
            max_walltime,
            max_gpus_per_node: 0,
            vram_gb: 0.0,
            gpus: 0,
        }]);
    }
    unique("campus.partitions", c.partitions.iter().map(|p| p.name.as_str()))?;
    let top = c.partitions.iter().map(|p| p.priority_job_factor).fold(0.0, f64::max);
    let mut out = Vec::new();
    for (i, p) in c.partitions.iter().enumerate() {
        let k = format!("campus.partitions[{i}]");
        let factor = nonneg(&format!("{k}.priority_job_factor"), p.priority_job_factor)?;
        let walltime = match p.max_walltime_hours {
            None => max_walltime,
            Some(h) if h.is_infinite() && h > 0.0 => None,
            Some(h) => Some(hours_to_secs(
                within(&format!("{k}.max_walltime_hours"), h, 1.0 / 60.0, 24.0 * 3650.0, "hours")?,
                60,
            )),
        };
        out.push(Partition {
            name: p.name.clone(),
            price_per_gpu_hour_cny: match p.price_per_gpu_hour_cny {
                Some(v) => nonneg(&format!("{k}.price_per_gpu_hour_cny"), v)?,
                None => price,
            },
            priority_factor: if top > 0.0 { factor / top } else { 0.0 },
            max_walltime: walltime,
            max_gpus_per_node: 0,
            vram_gb: 0.0,
            gpus: 0,
        });
    }
    Ok(out)
}

/// The node groups as given, or one group from `nodes` × `gpus_per_node` (the pool: one
/// group of `gpus` single-GPU nodes, used for reports only).
pub(super) fn node_groups(c: &RawCampus, gpus: u32, vram_gb: f64, partitions: &[Partition]) -> Result<Vec<NodeGroup>> {
    if c.node_groups.is_empty() {
        let (nodes, per_node) = match (c.nodes, c.gpus_per_node) {
            (Some(n), Some(p)) => (n, p),
            _ if c.placement == Placement::Nodes => {
                return bad(
                    "campus.gpus_per_node",
                    "placement = \"nodes\" needs the node shape: give nodes and gpus_per_node, or node_groups",
                );
            }
            _ => (gpus, 1),
        };
        if c.partitions.len() > 1 {
            return bad("campus.node_groups", "several partitions need node_groups saying which nodes each one has");
        }
        return Ok(vec![NodeGroup {
            name: "nodes".into(),
            nodes,
            gpus_per_node: per_node,
            gpu_type: c.gpu_type.clone(),
            vram_gb,
            partition: 0,
        }]);
    }
    unique("campus.node_groups", c.node_groups.iter().map(|g| g.name.as_str()))?;
    let mut out = Vec::new();
    for (i, g) in c.node_groups.iter().enumerate() {
        let k = format!("campus.node_groups[{i}]");
        if g.nodes == 0 || g.gpus_per_node == 0 {
            return bad(format!("{k}.nodes"), "nodes and gpus_per_node must be at least 1");
        }
        if g.gpus_per_node > 1024 {
            return bad(format!("{k}.gpus_per_node"), format!("{} is not allowed; at most 1024", g.gpus_per_node));
        }
        let partition = match &g.partition {
            None => 0,
            Some(name) => partitions.iter().position(|p| &p.name == name).ok_or_else(|| Invalid {
                key: format!("{k}.partition"),
                message: format!(
                    "no partition is named '{name}'; the partitions are: {}",
                    names(partitions.iter().map(|p| p.name.as_str()))
                ),
            })?,
        };
        if let Some(cpus) = g.cpus
            && cpus == 0
        {
            return bad(format!("{k}.cpus"), "0 is not allowed; give the CPU cores per node or leave it out");
        }
        if let Some(m) = g.memory_gb {
            positive(&format!("{k}.memory_gb"), m)?;
        }
        out.push(NodeGroup {
            name: g.name.clone(),
            nodes: g.nodes,
            gpus_per_node: g.gpus_per_node,
            gpu_type: g.gpu_type.clone(),
            vram_gb: positive(&format!("{k}.vram_gb"), g.vram_gb)?,
            partition: partition as u16,
        });
    }
    Ok(out)
}

/// Fills each partition's GPU count, largest node and memory from its node groups.
pub(super) fn with_nodes(mut partitions: Vec<Partition>, groups: &[NodeGroup]) -> Vec<Partition> {
    for g in groups {
        let p = &mut partitions[usize::from(g.partition)];
        p.gpus = p.gpus.saturating_add(g.nodes.saturating_mul(g.gpus_per_node));
        p.max_gpus_per_node = p.max_gpus_per_node.max(g.gpus_per_node);
        p.vram_gb = p.vram_gb.max(g.vram_gb);
    }
    partitions
}
