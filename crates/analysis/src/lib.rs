//! Pure functions from model values to the figures pages show. Nothing here
//! opens files or writes HTML: the one reader of outside data is
//! [`modifications::from_git`], which asks the repository its caller opened
//! (a [`vcs::Repo`]) for diffs and file texts.

pub mod aggregate;
pub mod allocation;
pub mod callgraph;
pub mod change_points;
pub mod code_owner;
pub mod derived_metrics;
pub mod evolution;
pub mod field;
pub mod field_filter;
pub mod flame;
pub mod flame_diff;
pub mod formula;
pub mod hierarchy;
pub mod line_costs;
pub mod matrix;
pub mod method_lines;
pub mod modifications;
pub mod origin;
pub mod profile_facts;
pub mod regression;
pub mod regression_report;
pub mod report;
pub mod root_cause;
pub mod scope;
pub mod shapes;
pub mod stats;
pub mod timeline;
pub mod totals;
pub mod treemap;
