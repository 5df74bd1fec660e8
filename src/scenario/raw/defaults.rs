//! Default values that several sections' serde attributes name (`default = "yes"`, …), in
//! one leaf module so that the sections share them without importing each other.

use crate::scenario::dist::DistSpec;

pub(super) fn yes() -> bool {
    true
}

pub(super) fn one_f64() -> f64 {
    1.0
}

pub(super) fn zero() -> DistSpec {
    DistSpec::fixed(0.0)
}
