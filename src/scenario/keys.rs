//! Dotted keys of a scenario document: setting a value at `policies.NAME.KEY` (arrays of
//! tables addressed by `name` or index, the value typed like the key it replaces,
//! `campus.gpus` on nodes turned into a node count), reading a number back, and whether a
//! key is the group's decision or a condition it faces ([`Role`]). It edits TOML and
//! knows nothing of grids or points: the sweep, the sensitivity band and calibration set
//! keys through it, and the scenario's own `[sensitivity]` check reads them.

/// A dotted key that does not lead to a scenario value, or a value of the wrong type
/// (the messages name the key as a sweep path: that is where users meet them most).
#[derive(Debug, thiserror::Error)]
pub enum KeyError {
    /// The path does not lead to a scenario key.
    #[error("sweep path '{path}': {problem}")]
    BadPath {
        /// The dotted path.
        path: String,
        /// What is wrong and what is allowed.
        problem: String,
    },
    /// A value has the wrong type for its key.
    #[error("sweep path '{path}': '{value}' is not allowed; {problem}")]
    BadValue {
        /// The dotted path.
        path: String,
        /// The value as given.
        value: String,
        /// What is allowed.
        problem: String,
    },
}

/// Whether a swept parameter is the group's choice or a condition it cannot control.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// Something the group decides: policy parameters (thresholds, budgets), the size of a
    /// monthly rental.
    Decision,
    /// Something the group faces: season intensity, the other groups' load, prices, the
    /// campus, its own demand.
    Condition,
}

impl Role {
    /// The default role of a dotted path:
    /// - `policies.…` (thresholds, offers, budgets) and a monthly offer's rented size
    ///   `cloud.offers.NAME.gpus` (and its rented months, `rent_months`) are decisions;
    /// - everything else is a condition: `background.…`, `workload.…`, `campus.…`, cloud
    ///   prices, capacities, delays, `simulation.…`.
    ///
    /// A key that is not known to be a decision is a condition, because treating a
    /// condition as a choice recommends a calendar ("choose the year without exams"),
    /// while treating a choice as a condition only splits the answer by its values.
    pub fn infer(key: &str) -> Role {
        let parts: Vec<&str> = key.split('.').collect();
        match parts.as_slice() {
            ["policies", ..] => Role::Decision,
            ["cloud", "offers", _, "gpus" | "rent_months"] => Role::Decision,
            _ => Role::Condition,
        }
    }

    /// `decision` or `condition`.
    pub fn name(self) -> &'static str {
        match self {
            Role::Decision => "decision",
            Role::Condition => "condition",
        }
    }

    /// Parses `decision` or `condition` (also `scenario`).
    pub fn parse(text: &str) -> Option<Role> {
        match text.trim() {
            "decision" => Some(Role::Decision),
            "condition" | "scenario" => Some(Role::Condition),
            _ => None,
        }
    }
}

fn names_in(array: &[toml::Value]) -> String {
    let names: Vec<String> = array
        .iter()
        .enumerate()
        .map(|(i, v)| v.get("name").and_then(|n| n.as_str()).map_or_else(|| i.to_string(), |n| format!("'{n}'")))
        .collect();
    names.join(", ")
}

/// Parses a value for a key that currently holds `current` (or is absent).
fn typed_value(path: &str, text: &str, current: Option<&toml::Value>) -> Result<toml::Value, KeyError> {
    let bad = |problem: &str| KeyError::BadValue { path: path.into(), value: text.into(), problem: problem.into() };
    let as_float = |t: &str| match t {
        "inf" | "+inf" => Some(f64::INFINITY),
        _ => t.parse::<f64>().ok().filter(|v| v.is_finite()),
    };
    Ok(match current {
        // An integer in the file may be a float key written without a decimal point
        // (`jobs_per_week = 40`): a fractional value is passed on and the scenario's own
        // type check decides.
        Some(toml::Value::Integer(_)) => match (text.parse::<i64>(), as_float(text)) {
            (Ok(i), _) => toml::Value::Integer(i),
            (Err(_), Some(f)) => toml::Value::Float(f),
            _ => return Err(bad("this key takes a number")),
        },
        Some(toml::Value::Float(_)) => {
            toml::Value::Float(as_float(text).ok_or_else(|| bad("this key takes a number"))?)
        }
        Some(toml::Value::Boolean(_)) => {
            toml::Value::Boolean(text.parse().map_err(|_| bad("this key takes true or false"))?)
        }
        Some(toml::Value::String(_)) => toml::Value::String(text.to_string()),
        // Rented months written as a list in the file are swept as texts ("4-5", "all").
        Some(toml::Value::Array(_)) if path.rsplit('.').next() == Some("rent_months") => {
            toml::Value::String(text.to_string())
        }
        Some(_) => return Err(bad("only numbers, booleans and strings can be swept, not tables or arrays")),
        None => {
            if let Ok(i) = text.parse::<i64>() {
                toml::Value::Integer(i)
            } else if let Some(f) = as_float(text) {
                toml::Value::Float(f)
            } else if let Ok(b) = text.parse::<bool>() {
                toml::Value::Boolean(b)
            } else {
                toml::Value::String(text.to_string())
            }
        }
    })
}

/// `campus.gpus = G` on a campus of nodes: `nodes = G / gpus_per_node`, keeping the node
/// shape (what a user sweeping the cluster size means); refused, with the values that
/// would work, when G is not a whole number of nodes or the nodes come in groups.
fn set_node_count(campus: &mut toml::Table, path: &str, text: &str) -> Result<(), KeyError> {
    let bad = |problem: String| KeyError::BadPath { path: path.into(), problem };
    if campus.contains_key("node_groups") {
        return Err(bad("the campus is given as node_groups, so its size is each group's node count: sweep \
             campus.node_groups.N.nodes (N = 0, 1, …) instead"
            .into()));
    }
    let per_node =
        campus.get("gpus_per_node").and_then(toml::Value::as_integer).filter(|&g| g > 0).ok_or_else(|| {
            bad("placement = \"nodes\" without a whole gpus_per_node: sweep campus.nodes instead".into())
        })?;
    let gpus: i64 = text.trim().parse().map_err(|_| bad(format!("'{text}' is not a whole number of GPUs")))?;
    if gpus <= 0 || gpus % per_node != 0 {
        let below = (gpus / per_node).max(1) * per_node;
        return Err(bad(format!(
            "the campus has nodes of {per_node} GPUs, so campus.gpus sets campus.nodes = GPUs / {per_node} and needs \
             a positive multiple of {per_node}, not {text} (e.g. {below} or {}); or sweep campus.nodes",
            below + per_node
        )));
    }
    campus.insert("nodes".into(), toml::Value::Integer(gpus / per_node));
    Ok(())
}

/// Sets `path` to `text` in a scenario document.
pub fn set_path(doc: &mut toml::Table, path: &str, text: &str) -> Result<(), KeyError> {
    let steps: Vec<&str> = path.split('.').collect();
    if steps.iter().any(|s| s.is_empty()) {
        return Err(KeyError::BadPath { path: path.into(), problem: "empty part in the dotted path".into() });
    }
    let mut table = doc;
    let mut walked = String::new();
    for (i, step) in steps.iter().enumerate() {
        let last = i + 1 == steps.len();
        if last {
            if walked == "campus" && *step == "gpus" {
                if table.get("placement").and_then(toml::Value::as_str) == Some("nodes") {
                    // On nodes the cluster grows by nodes of the same shape.
                    return set_node_count(table, path, text);
                }
                // On a pool, the cluster size replaces nodes × gpus_per_node.
                table.remove("nodes");
                table.remove("gpus_per_node");
            }
            let value = typed_value(path, text, table.get(*step))?;
            table.insert(step.to_string(), value);
            return Ok(());
        }
        let here = if walked.is_empty() { "the top level".to_string() } else { format!("'{walked}'") };
        let keys: Vec<String> = table.keys().cloned().collect();
        let next = table.get_mut(*step).ok_or_else(|| KeyError::BadPath {
            path: path.into(),
            problem: format!("'{step}' is not in {here}; there: {}", keys.join(", ")),
        })?;
        walked = if walked.is_empty() { step.to_string() } else { format!("{walked}.{step}") };
        table = match next {
            toml::Value::Table(t) => t,
            toml::Value::Array(arr) => {
                let name = steps[i + 1];
                let listed = names_in(arr);
                let idx = arr
                    .iter()
                    .position(|v| v.get("name").and_then(|n| n.as_str()) == Some(name))
                    .or_else(|| name.parse::<usize>().ok().filter(|&k| k < arr.len()))
                    .ok_or_else(|| KeyError::BadPath {
                        path: path.into(),
                        problem: format!("nothing named '{name}' in '{walked}'; the names are: {listed}"),
                    })?;
                if i + 2 == steps.len() {
                    return Err(KeyError::BadPath {
                        path: path.into(),
                        problem: format!("'{walked}.{name}' is a table; name one of its keys"),
                    });
                }
                // Skip the name step: continue inside the element.
                return set_path(
                    arr[idx].as_table_mut().ok_or_else(|| KeyError::BadPath {
                        path: path.into(),
                        problem: format!("'{walked}' is not a list of tables"),
                    })?,
                    &steps[i + 2..].join("."),
                    text,
                )
                .map_err(|e| prefix_path(e, path));
            }
            _ => {
                return Err(KeyError::BadPath {
                    path: path.into(),
                    problem: format!("'{walked}' is a value, not a table"),
                });
            }
        };
    }
    unreachable!("the loop returns at the last step")
}

/// The number at `path` in a scenario document (arrays of tables addressed by name or
/// index, as in [`set_path`]); `None` when absent or not a number.
pub fn get_number(doc: &toml::Table, path: &str) -> Option<f64> {
    let steps: Vec<&str> = path.split('.').collect();
    let mut value: Option<&toml::Value> = None;
    let mut table = doc;
    let mut i = 0;
    while i < steps.len() {
        let v = table.get(steps[i])?;
        i += 1;
        let v = match v {
            toml::Value::Array(arr) => {
                let name = *steps.get(i)?;
                i += 1;
                arr.iter()
                    .find(|e| e.get("name").and_then(|n| n.as_str()) == Some(name))
                    .or_else(|| name.parse::<usize>().ok().and_then(|k| arr.get(k)))?
            }
            other => other,
        };
        value = Some(v);
        if i < steps.len() {
            table = v.as_table()?;
        }
    }
    match value? {
        toml::Value::Float(f) => Some(*f),
        toml::Value::Integer(n) => Some(*n as f64),
        _ => None,
    }
}

fn prefix_path(e: KeyError, full: &str) -> KeyError {
    match e {
        KeyError::BadPath { problem, .. } => KeyError::BadPath { path: full.into(), problem },
        KeyError::BadValue { value, problem, .. } => KeyError::BadValue { path: full.into(), value, problem },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_address_arrays_of_tables_by_name() {
        let mut doc: toml::Table =
            toml::from_str("[campus]\nnodes = 2\ngpus_per_node = 8\n[[policies]]\nname = \"a\"\nthreshold_hours = 4\n")
                .unwrap();
        set_path(&mut doc, "policies.a.threshold_hours", "8").unwrap();
        assert_eq!(doc["policies"][0]["threshold_hours"].as_float(), None, "an integer stays an integer");
        assert_eq!(doc["policies"][0]["threshold_hours"].as_integer(), Some(8));
        set_path(&mut doc, "campus.gpus", "64").unwrap();
        assert!(doc["campus"].get("nodes").is_none());
        let e = set_path(&mut doc, "policies.b.threshold_hours", "1").unwrap_err().to_string();
        assert!(e.contains("nothing named 'b'") && e.contains("'a'"), "{e}");
        let e = set_path(&mut doc, "campus.nodes.x", "1").unwrap_err().to_string();
        assert!(e.contains("'nodes' is not in 'campus'"), "{e}");
        let e = set_path(&mut doc, "campus.gpus", "many").unwrap_err().to_string();
        assert!(e.contains("takes a number"), "{e}");
    }

    /// Issue 27, item 12: the documented `campus.gpus` failed on the shipped default
    /// (placement = "nodes"): it removed the node shape.
    #[test]
    fn campus_gpus_on_nodes_sets_the_node_count() {
        let text = "[campus]\nplacement = \"nodes\"\nnodes = 48\ngpus_per_node = 8\n";
        let mut doc: toml::Table = toml::from_str(text).unwrap();
        set_path(&mut doc, "campus.gpus", "256").unwrap();
        assert_eq!(doc["campus"]["nodes"].as_integer(), Some(32));
        assert_eq!(doc["campus"]["gpus_per_node"].as_integer(), Some(8));
        assert!(doc["campus"].get("gpus").is_none(), "the node form stays");
        let e = set_path(&mut doc, "campus.gpus", "300").unwrap_err().to_string();
        assert!(e.contains("multiple of 8") && e.contains("296 or 304") && e.contains("campus.nodes"), "{e}");
        let mut groups: toml::Table =
            toml::from_str("[campus]\nplacement = \"nodes\"\n[[campus.node_groups]]\nnodes = 2\ngpus_per_node = 8\n")
                .unwrap();
        let e = set_path(&mut groups, "campus.gpus", "64").unwrap_err().to_string();
        assert!(e.contains("campus.node_groups.N.nodes"), "{e}");
    }
}
