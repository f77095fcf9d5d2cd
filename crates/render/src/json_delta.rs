//! A JSON value stored as its differences from another, for the page's
//! script to rebuild (`shapes.js` `withDifferences`).
//!
//! An aggregate page stores every repetition's views (aggregate_page.rs).
//! They are made by the same code from similar trees, so they share their
//! shape, titles, notes and captions and differ in their numbers, labels
//! and heaviest functions. The first repetition's views are stored whole,
//! the others as their differences from it.
//!
//! The differences are taken after a renaming: every string of the base
//! with one name written as another (`r1` as `r2`: "r1.time.svg" is
//! "r2.time.svg"), which the script does too before making the changes.
//! A string that does not read the same after it is a change, so the
//! renaming never loses anything.
//!
//! A delta is a list of changes; each is a path (object keys and array
//! indices) followed by the value found there, `["views",0,"height",928]`.
//! A change with an empty path (`[value]`) replaces the whole value.
//! Objects with the same keys and arrays of the same length are compared
//! member by member; any other difference replaces the member whole, as
//! does a member whose changes would be longer than the member itself.

use serde_json::Value;

/// A name written as another in every string of the base: `(from, to)`.
pub type Rename<'a> = (&'a str, &'a str);

/// The changes that turn `base`, renamed, into `value`, as a JSON array.
pub fn delta(base: &Value, value: &Value, rename: Rename) -> Value {
    let mut changes = Vec::new();
    let mut path = Vec::new();
    differences(base, value, rename, &mut path, &mut changes);
    Value::Array(changes)
}

/// Appends to `out` the changes under `path` that turn `base`, renamed,
/// into `value`.
fn differences(
    base: &Value,
    value: &Value,
    rename: Rename,
    path: &mut Vec<Value>,
    out: &mut Vec<Value>,
) {
    let start = out.len();
    match (base, value) {
        (Value::Object(b), Value::Object(v))
            if b.len() == v.len() && b.keys().all(|k| v.contains_key(k)) =>
        {
            for (key, member) in v {
                path.push(Value::String(key.clone()));
                differences(&b[key], member, rename, path, out);
                path.pop();
            }
        }
        (Value::Array(b), Value::Array(v)) if b.len() == v.len() => {
            for (i, (b, member)) in b.iter().zip(v).enumerate() {
                path.push(Value::from(i));
                differences(b, member, rename, path, out);
                path.pop();
            }
        }
        (Value::String(b), Value::String(v)) => {
            let (from, to) = rename;
            let same = match from.is_empty() {
                true => b == v,
                false => b.replace(from, to) == *v,
            };
            if !same {
                out.push(change(path, value));
            }
            return;
        }
        _ if base == value => return,
        _ => return out.push(change(path, value)),
    }
    if out.len() - start > 1 && changes_are_longer(&out[start..], value) {
        out.truncate(start);
        out.push(change(path, value));
    }
}

fn change(path: &[Value], value: &Value) -> Value {
    let mut change = path.to_vec();
    change.push(value.clone());
    Value::Array(change)
}

/// Whether `changes` take more bytes than `value` written whole.
fn changes_are_longer(changes: &[Value], value: &Value) -> bool {
    let length = |v: &Value| serde_json::to_string(v).map_or(0, |s| s.len());
    changes.iter().map(length).sum::<usize>() > length(value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// `base`, renamed, with the changes of `delta` made, as the script
    /// (shapes.js `withDifferences`) makes them.
    fn rename_strings(value: &mut Value, (from, to): Rename) {
        match value {
            Value::String(s) if !from.is_empty() && s.contains(from) => *s = s.replace(from, to),
            Value::Array(items) => items.iter_mut().for_each(|v| rename_strings(v, (from, to))),
            Value::Object(members) => members
                .values_mut()
                .for_each(|v| rename_strings(v, (from, to))),
            _ => {}
        }
    }

    fn apply(mut base: Value, delta: &Value, rename: Rename) -> Option<Value> {
        rename_strings(&mut base, rename);
        for change in delta.as_array()? {
            let change = change.as_array()?;
            let (value, path) = change.split_last()?;
            let mut at = &mut base;
            for key in path {
                at = match key {
                    Value::String(k) => at.get_mut(k.as_str())?,
                    Value::Number(i) => at.get_mut(usize::try_from(i.as_u64()?).ok()?)?,
                    _ => return None,
                };
            }
            *at = value.clone();
        }
        Some(base)
    }

    fn round_trip(base: Value, value: Value) -> Value {
        renamed_round_trip(base, value, ("", ""))
    }

    fn renamed_round_trip(base: Value, value: Value, rename: Rename) -> Value {
        let d = delta(&base, &value, rename);
        assert_eq!(apply(base, &d, rename), Some(value), "delta {d}");
        d
    }

    #[test]
    fn equal_values_need_no_change() {
        let v = json!({"views": [{"title": "r1", "height": 928.0}], "rows": []});
        assert_eq!(round_trip(v.clone(), v), json!([]));
    }

    #[test]
    fn only_the_members_that_differ_are_stored() {
        let note =
            "Each box is a function in a calling context; its width is its share of the total.";
        let base = json!({"views": [{"title": "a · r1", "note": note, "height": 928.0},
                                    {"title": "b · r1", "note": note, "height": 64.0}]});
        let value = json!({"views": [{"title": "a · r2", "note": note, "height": 928.0},
                                     {"title": "b · r2", "note": note, "height": 80.0}]});
        let d = round_trip(base, value);
        assert_eq!(
            d,
            json!([
                ["views", 0, "title", "a · r2"],
                ["views", 1, "height", 80.0],
                ["views", 1, "title", "b · r2"]
            ])
        );
    }

    #[test]
    fn members_of_another_kind_or_length_are_replaced_whole() {
        let note =
            "a member long enough that writing the whole value again costs more than the changes";
        let d = round_trip(
            json!({"names": ["x", "y"], "page_tree": 0, "base": [1, 2], "more": {"a": 1}, "note": note}),
            json!({"names": ["x"], "page_tree": null, "base": [1, 3], "more": {"b": 1}, "note": note}),
        );
        assert_eq!(
            d,
            json!([["base", 1, 3], ["more", {"b": 1}], ["names", ["x"]], ["page_tree", null]])
        );
        // The whole value replaced: an empty path.
        assert_eq!(
            round_trip(json!([1, 2]), json!({"a": 1})),
            json!([[{"a": 1}]])
        );
    }

    #[test]
    fn a_member_whose_changes_are_longer_than_itself_is_written_whole() {
        let base = json!({"rows": [["f", "a.py", 1.0, 2.0], ["g", "b.py", 3.0, 4.0]]});
        let value = json!({"rows": [["g", "b.py", 3.0, 4.0], ["f", "a.py", 1.0, 2.0]]});
        let d = round_trip(base, value.clone());
        assert_eq!(d, json!([["rows", value["rows"]]]));
    }

    #[test]
    fn a_delta_that_does_not_fit_its_base_is_refused() {
        let none = ("", "");
        assert_eq!(apply(json!({"a": [1]}), &json!([["a", 3, 1]]), none), None);
        assert_eq!(apply(json!({"a": 1}), &json!([["b", "c", 1]]), none), None);
        assert_eq!(apply(json!({"a": 1}), &json!({"a": 2}), none), None);
        assert_eq!(apply(json!({"a": 1}), &json!([[]]), none), None);
    }

    #[test]
    fn strings_that_read_the_same_after_the_renaming_are_not_stored() {
        let base = json!({"title": "basic · 3.7 · r1 · time", "save_name": "r1.time.svg",
                          "names": ["run1", "Parser1", "r1"], "key": "r1x"});
        let value = json!({"title": "basic · 3.7 · r2 · time", "save_name": "r2.time.svg",
                           "names": ["run1", "Parser1", "r1"], "key": "r2x"});
        // "run1" would read "run2", and the name "r1" "r2": both are kept
        // as they are (here the list whole, which is shorter than two
        // changes). Keys are not renamed.
        let d = renamed_round_trip(base, value, ("r1", "r2"));
        assert_eq!(d, json!([["names", ["run1", "Parser1", "r1"]]]));
    }
}
