use super::*;
use model::field::FileCoverage;

fn execution(id: &str, outcome: &str, lines: &[(u32, u64)]) -> Execution {
    Execution {
        id: id.into(),
        outcome: outcome.into(),
        files: vec![FileCoverage {
            path: "app/parse.py".into(),
            lines: lines.to_vec(),
            functions: vec![],
        }],
        ..Execution::default()
    }
}

/// Ten executions, four failing. Line 1 runs everywhere; line 2 in the
/// four failures and one pass; line 3 in two failures and three passes;
/// line 4 only in passes; line 5 never.
fn worked_example() -> Vec<Execution> {
    let mut out = Vec::new();
    for i in 0..4 {
        let l3 = if i < 2 { 1 } else { 0 };
        out.push(execution(
            &format!("f{i}"),
            "ZeroDivisionError",
            &[(1, 2), (2, 1), (3, l3), (4, 0), (5, 0)],
        ));
    }
    for i in 0..6 {
        let l2 = if i == 0 { 1 } else { 0 };
        let l3 = if i < 3 { 1 } else { 0 };
        out.push(execution(
            &format!("p{i}"),
            "normal",
            &[(1, 1), (2, l2), (3, l3), (4, 5), (5, 0)],
        ));
    }
    out
}

#[test]
fn tarantula_on_a_worked_example() {
    let all = worked_example();
    let refs: Vec<&Execution> = all.iter().collect();
    let (files, totals) = line_stats(&refs);
    assert_eq!(
        (totals.executions, totals.failed, totals.passed()),
        (10, 4, 6)
    );
    let lines = &files[0].lines;
    let hue = |i: usize| tarantula(&lines[i], &totals).map(|c| (c.hue, c.brightness));
    // Everyone: %passed = %failed = 1 → yellow (60), brightest.
    assert_eq!(hue(0), Some((60.0, 1.0)));
    // 4/4 failing, 1/6 passing: 120 × (1/6) / (1/6 + 1) = 17.14…, bright.
    let (h, b) = hue(1).unwrap();
    assert!((h - 120.0 / 7.0).abs() < 1e-12 && b == 1.0);
    // 2/4 failing, 3/6 passing: 60, brightness 0.3 + 0.7 × 0.5.
    let (h, b) = hue(2).unwrap();
    assert!((h - 60.0).abs() < 1e-12 && (b - 0.65).abs() < 1e-12);
    // Only passing executions: green.
    assert_eq!(hue(3), Some((120.0, 1.0)));
    // Never run: no colour (grey).
    assert_eq!(hue(4), None);
    assert_eq!(lines[1].executed_by, 5);
    assert_eq!(lines[1].failed, 4);
    assert_eq!(lines[3].count, 30);
}

#[test]
fn hotspots_are_red_where_most_executed() {
    let all = worked_example();
    let refs: Vec<&Execution> = all.iter().collect();
    let (files, totals) = line_stats(&refs);
    let c = colours(&files, &totals, Colouring::Hotspot);
    // Line 4 runs 30 times, the most: red; line 2 runs 5 times.
    assert_eq!(c[0][3].unwrap().hue, 0.0);
    assert!((c[0][1].unwrap().hue - 120.0 * (1.0 - 5.0 / 30.0)).abs() < 1e-12);
    assert_eq!(c[0][4], None);
}

#[test]
fn bins_count_every_line_once() {
    let colours = vec![
        Some(Colour {
            hue: 0.0,
            brightness: 1.0,
        }),
        Some(Colour {
            hue: 119.9,
            brightness: MIN_BRIGHTNESS,
        }),
        Some(Colour {
            hue: 120.0,
            brightness: 0.65,
        }),
        None,
    ];
    let b = bins(&colours);
    assert_eq!(b[0][0], 1);
    assert_eq!(b[HUE_BINS - 1][BRIGHTNESS_BINS - 1], 1);
    assert_eq!(b[HUE_BINS - 1][2], 1);
    assert_eq!(b[HUE_BINS][0], 1);
    assert_eq!(b.iter().flatten().sum::<usize>(), 4);
}

#[test]
fn a_group_band_is_the_average_of_its_members() {
    let a = Colour {
        hue: 0.0,
        brightness: 1.0,
    };
    let b = Colour {
        hue: 120.0,
        brightness: 0.5,
    };
    assert_eq!(
        average(&[a, b]),
        Some(Colour {
            hue: 60.0,
            brightness: 0.75
        })
    );
    assert_eq!(average(&[]), None);
}

#[test]
fn huge_counts_saturate() {
    let all = [
        execution("a", "normal", &[(1, u64::MAX)]),
        execution("b", "normal", &[(1, u64::MAX)]),
    ];
    let refs: Vec<&Execution> = all.iter().collect();
    let (files, _) = line_stats(&refs);
    assert_eq!(files[0].lines[0].count, u64::MAX);
    assert_eq!(total_count(&all[0]), u64::MAX);
}
