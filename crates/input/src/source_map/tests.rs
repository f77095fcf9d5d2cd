use std::path::Path;

use model::error::Place;

use super::*;

/// Encodes one value as base64 VLQ (to write test maps by number).
fn vlq_encode(value: i64) -> String {
    let alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut v = if value < 0 {
        ((-value) << 1) | 1
    } else {
        value << 1
    } as u64;
    let mut out = String::new();
    loop {
        let mut digit = (v & 0x1f) as u8;
        v >>= 5;
        if v > 0 {
            digit |= 0x20;
        }
        out.push(alphabet[digit as usize] as char);
        if v == 0 {
            return out;
        }
    }
}

/// A map with sources `a.js`, `b.js`, names `x`, `y` and `mappings`.
fn map_with(mappings: &str) -> Result<SourceMap, InputError> {
    let json = format!(
        r#"{{"version":3,"sources":["a.js","b.js"],"names":["x","y"],"mappings":"{mappings}"}}"#
    );
    SourceMap::parse("out.js.map", json.as_bytes())
}

/// (source, line, column, name) at a generated position.
fn at(map: &SourceMap, line: u32, column: u32) -> Option<(String, u32, u32, Option<String>)> {
    map.original(line, column).map(|o| {
        (
            o.source.to_string(),
            o.line,
            o.column,
            o.name.map(str::to_string),
        )
    })
}

fn o(
    source: &str,
    line: u32,
    column: u32,
    name: Option<&str>,
) -> Option<(String, u32, u32, Option<String>)> {
    Some((source.to_string(), line, column, name.map(str::to_string)))
}

/// The message of a map's error, with its place and the file.
fn error_of(result: Result<SourceMap, InputError>) -> String {
    match result {
        Ok(_) => panic!("expected an error"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn vlq_values_decode_as_the_spec_says() {
    assert_eq!(vlq(b"A"), Ok((0, 1)));
    assert_eq!(vlq(b"C"), Ok((1, 1)));
    assert_eq!(vlq(b"D"), Ok((-1, 1)));
    // `-0`, read as 0.
    assert_eq!(vlq(b"B"), Ok((0, 1)));
    assert_eq!(vlq(b"gB"), Ok((16, 2)));
    assert_eq!(vlq(b"hB"), Ok((-16, 2)));
    for value in [
        0,
        1,
        -1,
        15,
        16,
        -16,
        1000,
        -123_456,
        i32::MAX as i64,
        -(i32::MAX as i64),
    ] {
        let text = vlq_encode(value);
        assert_eq!(vlq(text.as_bytes()), Ok((value, text.len())), "{value}");
    }
    // Only the first value is read.
    assert_eq!(vlq(b"CAAA"), Ok((1, 1)));
}

#[test]
fn vlq_refuses_values_past_32_bits_bad_digits_and_a_cut_value() {
    let too_big = vlq_encode(i32::MAX as i64 + 1);
    assert!(vlq(too_big.as_bytes()).unwrap_err().1.contains("32 bits"));
    assert!(vlq(b"gggggggggggggggA").unwrap_err().1.contains("32 bits"));
    assert_eq!(vlq(b"g").unwrap_err().0, 1);
    assert!(vlq(b"g").unwrap_err().1.contains("ends inside a value"));
    assert!(vlq(b"*")
        .unwrap_err()
        .1
        .contains("'*' is not a base64 digit"));
    assert!(vlq(b"\xff").unwrap_err().1.contains("byte 0xff"));
}

#[test]
fn lookup_takes_the_last_segment_at_or_before_the_column() {
    // Line 0: col 0 → a.js 0:0; col 4 → a.js 0:4 "x"; col 10 → b.js 2:3 "y".
    let map = map_with("AAAA,IAAIA,MCEDC").unwrap();
    assert_eq!(at(&map, 0, 0), o("a.js", 0, 0, None));
    assert_eq!(at(&map, 0, 3), o("a.js", 0, 0, None));
    assert_eq!(at(&map, 0, 4), o("a.js", 0, 4, Some("x")));
    assert_eq!(at(&map, 0, 9), o("a.js", 0, 4, Some("x")));
    assert_eq!(at(&map, 0, 10), o("b.js", 2, 3, Some("y")));
    assert_eq!(at(&map, 0, u32::MAX), o("b.js", 2, 3, Some("y")));
    assert_eq!(at(&map, 1, 0), None);
    assert_eq!(at(&map, u32::MAX, 0), None);
    assert_eq!(map.original(0, 10).unwrap().source_index, 1);
}

#[test]
fn no_segment_before_the_column_or_one_without_a_source_gives_none() {
    // Line 0 starts at column 5; line 1 has a one-field segment at 3.
    let map = map_with("KAAA;AAAA,G").unwrap();
    assert_eq!(at(&map, 0, 4), None);
    assert_eq!(at(&map, 0, 5), o("a.js", 0, 0, None));
    assert_eq!(at(&map, 1, 2), o("a.js", 0, 0, None));
    assert_eq!(at(&map, 1, 3), None);
    assert_eq!(at(&map, 1, 100), None);
}

#[test]
fn a_whole_line_maps_to_one_original_line_or_to_none() {
    // Line 0: two segments on a.js line 0 (and a one-field segment);
    // line 1: a.js lines 1 and 2 (minified code); line 2: nothing;
    // line 3: only a one-field segment.
    let map = map_with("AAAA,IAAI,C;AACA,IACA;;A").unwrap();
    assert_eq!(map.original_line(0), Some(("a.js", 0)));
    assert_eq!(map.original_line(1), None);
    assert_eq!(map.original_line(2), None);
    assert_eq!(map.original_line(3), None);
    assert_eq!(map.original_line(4), None);
    assert_eq!(map.original_line(u32::MAX), None);
}

#[test]
fn original_fields_carry_across_lines_and_the_generated_column_does_not() {
    // Line 0: col 2 → b.js 3:4 "y". Line 2 (after an empty line): col 1
    // → b.js 3+1:4-2 "y"-1 = "x", relative to line 0's segment.
    let map = map_with("ECGIC;;CACFD").unwrap();
    assert_eq!(at(&map, 0, 2), o("b.js", 3, 4, Some("y")));
    assert_eq!(at(&map, 1, 0), None);
    assert_eq!(at(&map, 2, 0), None);
    assert_eq!(at(&map, 2, 1), o("b.js", 4, 2, Some("x")));
    assert_eq!(map.generated_lines(), 3);
}

#[test]
fn a_line_whose_columns_go_backwards_is_sorted() {
    // col 2 → a.js 0:0, then col 2-1 = 1 → a.js 0:1 (Mozilla agrees).
    let map = map_with("EAAA,DAAC").unwrap();
    assert_eq!(at(&map, 0, 0), None);
    assert_eq!(at(&map, 0, 1), o("a.js", 0, 1, None));
    assert_eq!(at(&map, 0, 2), o("a.js", 0, 0, None));
    assert_eq!(at(&map, 0, 3), o("a.js", 0, 0, None));
}

#[test]
fn segments_at_one_column_resolve_as_mozillas_source_map_does() {
    // Each answer below is what source-map@0.7.4 gives for column 0.
    let cases = [
        ("AAAA,AACA,AACAC", o("a.js", 2, 0, Some("y"))),
        ("AAEA,AADA", o("a.js", 2, 0, None)),
        ("AAAC,AAAD", o("a.js", 0, 1, None)),
        ("AAAAC,AAAAD", o("a.js", 0, 0, Some("y"))),
        ("AAAAA,AAAA", o("a.js", 0, 0, Some("x"))),
        ("AAAA,AAAAA", o("a.js", 0, 0, Some("x"))),
        ("ACAA,ADAA", o("b.js", 0, 0, None)),
        ("AAAA,ACAA", o("b.js", 0, 0, None)),
        ("AAAA,A", None),
        ("A,AAAA", None),
    ];
    for (mappings, expected) in cases {
        let map = map_with(mappings).unwrap();
        assert_eq!(at(&map, 0, 0), expected, "{mappings}");
        assert_eq!(map.segments.len(), 1, "{mappings}: one segment per column");
    }
}

#[test]
fn empty_segments_and_trailing_separators_carry_nothing() {
    let map = map_with("AAAA,,CAAC;;").unwrap();
    assert_eq!(at(&map, 0, 1), o("a.js", 0, 1, None));
    assert_eq!(map.generated_lines(), 1);
    let empty = map_with("").unwrap();
    assert_eq!(empty.generated_lines(), 0);
    assert_eq!(at(&empty, 0, 0), None);
}

#[test]
fn bad_segments_are_errors_naming_the_file_line_segment_and_byte() {
    let cases = [
        ("AAAA;AA", "$.mappings: generated line 2, segment 1 (byte 5 of the string): 2 fields (a segment has 1, 4 or 5)"),
        ("AAA", "$.mappings: generated line 1, segment 1 (byte 0 of the string): 3 fields"),
        ("AAAA,AAAAAA", "generated line 1, segment 2 (byte 5 of the string): more than 5 fields"),
        ("AEAA", "source index 2 is out of range (2 sources)"),
        ("AAAAE", "name index 2 is out of range (2 names)"),
        ("AADA", "original line -1 is out of range"),
        ("AAAD", "original column -1 is out of range"),
        ("D", "generated column -1 is out of range"),
        ("AAAA,CA*A", "generated line 1, segment 2 (byte 7 of the string): '*' is not a base64 digit"),
        ("AAAg", "byte 4 of the string): the segment ends inside a value"),
        ("AAAA;;gggggggggggA", "generated line 3, segment 1 (byte 6 of the string): a value does not fit in 32 bits"),
    ];
    for (mappings, expected) in cases {
        let message = error_of(map_with(mappings));
        assert!(message.starts_with("out.js.map: $.mappings: "), "{message}");
        assert!(message.contains(expected), "{mappings}: {message}");
    }
}

#[test]
fn relative_values_that_leave_32_bits_are_errors() {
    let big = vlq_encode(i32::MAX as i64);
    let mappings = format!("{big}AAA,{big}AAA,{big}AAA");
    let message = error_of(map_with(&mappings));
    assert!(message.contains("segment 3"), "{message}");
    assert!(
        message.contains("generated column 6442450941 is out of range"),
        "{message}"
    );
}

/// The example map of the specification (ECMA-426 §"Source map format",
/// from the Revision 3 proposal) illustrates syntax only: its third line's
/// `D` moves the original column to -1. Mozilla's source-map refuses it
/// too ("the mappings contained a negative line, column…").
#[test]
fn the_specifications_example_map_is_refused_at_its_negative_column() {
    let json = br#"{
        "version": 3,
        "file": "out.js",
        "sourceRoot": "",
        "sources": ["foo.js", "bar.js"],
        "sourcesContent": [null, null],
        "names": ["src", "maps", "are", "fun"],
        "mappings": "A,AAAB;;ABCDE"
    }"#;
    let message = error_of(SourceMap::parse("out.js.map", json));
    assert_eq!(
        message,
        "out.js.map: $.mappings: generated line 3, segment 1 (byte 8 of the string): original column -1 is out of range"
    );
    // Its first line alone is fine: a one-field segment and `AAAB` (`B`
    // is -0) at one column, where the one-field segment wins, as in
    // Mozilla's source-map.
    let first_line = std::str::from_utf8(json).unwrap().replace(";;ABCDE", "");
    let first = SourceMap::parse("out.js.map", first_line.as_bytes()).unwrap();
    assert_eq!(at(&first, 0, 0), None);
    assert_eq!(first.source_content(0), None);
}

#[test]
fn json_errors_carry_the_place() {
    let cases: [(&[u8], &str); 9] = [
        (
            br#"{"version":3,"sources":["a.js"],"mappi"#,
            "out.js.map: line 1: column 38: EOF while parsing a string",
        ),
        (b" \n", "out.js.map: the file is empty"),
        (
            b"[1,2]",
            "out.js.map: $: a source map is a JSON object; this text starts with '['",
        ),
        (
            b"{\"version\":3,\"sources\":[\"a\xff.js\"],\"mappings\":\"\"}",
            "line 1: column 27: invalid unicode code point",
        ),
        (
            br#"{"version":2,"sources":[],"mappings":""}"#,
            "$.version: source map version 2 is not supported (only 3)",
        ),
        (br#"{"sources":[],"mappings":""}"#, "$: no `version`"),
        (br#"{"version":3,"mappings":""}"#, "$: no `sources`"),
        (br#"{"version":3,"sources":[]}"#, "$: no `mappings`"),
        (
            br#"{"version":3,"sources":["a.js"],"sourcesContent":["",""],"mappings":""}"#,
            "$.sourcesContent: 2 entries for 1 sources",
        ),
    ];
    for (json, expected) in cases {
        let message = error_of(SourceMap::parse("out.js.map", json));
        assert!(message.contains(expected), "{message}");
        assert!(message.starts_with("out.js.map: "), "{message}");
    }
}

#[test]
fn a_bom_and_the_xssi_prefix_are_skipped() {
    let json = br#"{"version":3,"sources":["a.js"],"mappings":"AAAA"}"#;
    let with_bom = [b"\xef\xbb\xbf".as_slice(), json].concat();
    let with_xssi = [b")]}'\n".as_slice(), json].concat();
    for text in [with_bom, with_xssi] {
        let map = SourceMap::parse("m.map", &text).unwrap();
        assert_eq!(at(&map, 0, 0), o("a.js", 0, 0, None));
    }
}

#[test]
fn sources_are_resolved_against_the_root_and_the_maps_directory() {
    let cases = [
        // (map path, sourceRoot, source, resolved)
        ("lib/x.js.map", "", "../src/a.ts", "src/a.ts"),
        ("lib/x.js.map", "", "./b.js", "lib/b.js"),
        ("x.js.map", "", "../src/a.ts", "../src/a.ts"),
        ("lib/x.js.map", "", "../../../a.ts", "../../a.ts"),
        ("/p/lib/x.js.map", "", "../../../../a.js", "/a.js"),
        ("/x.js.map", "", "a.js", "/a.js"),
        ("lib/x.js.map", "r", "../src/a.ts", "lib/src/a.ts"),
        ("lib/x.js.map", "/r/", "../src/a.ts", "/src/a.ts"),
        ("lib/x.js.map", "/r", "/b.js", "/r/b.js"),
        (
            "lib/x.js.map",
            "",
            "webpack://app/./src/a.ts",
            "app/src/a.ts",
        ),
        ("lib/x.js.map", "", "webpack:///./src/a.ts", "src/a.ts"),
        (
            "lib/x.js.map",
            "",
            "webpack:///webpack/bootstrap",
            "webpack/bootstrap",
        ),
        ("lib/x.js.map", "", "webpack://N/../x/./b.js", "x/b.js"),
        ("lib/x.js.map", "webpack:///", "./src/a.ts", "src/a.ts"),
        ("lib/x.js.map", "r", "webpack://N/b.js", "N/b.js"),
        (
            "lib/x.js.map",
            "",
            "webpack-internal:///./src/a.ts",
            "src/a.ts",
        ),
        (
            "lib/x.js.map",
            "",
            "file:///home/me/src/a.ts",
            "/home/me/src/a.ts",
        ),
        ("lib/x.js.map", "", "FILE:///home/me/../a.ts", "/home/a.ts"),
        (
            "lib/x.js.map",
            "",
            "https://cdn.example/pkg/./dist/../src/a.ts",
            "https://cdn.example/pkg/src/a.ts",
        ),
        ("lib/x.js.map", "", "C:/work/src/a.ts", "C:/work/src/a.ts"),
        ("lib/x.js.map", "", "src/a.vue?5a8b", "lib/src/a.vue?5a8b"),
    ];
    for (map_path, root, source, expected) in cases {
        assert_eq!(
            resolve_source(
                map_path.rfind('/').map_or("", |i| &map_path[..=i]),
                root,
                source
            ),
            expected,
            "{map_path} {root:?} {source}"
        );
    }
    // Through `parse`.
    let json =
        br#"{"version":3,"sourceRoot":"src","sources":["a.js",null],"mappings":"AAAA,CCAA"}"#;
    let map = SourceMap::parse("dist/out.js.map", json).unwrap();
    assert_eq!(at(&map, 0, 0), o("dist/src/a.js", 0, 0, None));
    // A `null` source maps to nothing (Mozilla's answers "…/null").
    assert_eq!(at(&map, 0, 1), None);
    assert_eq!(map.source(1), None);
    assert_eq!(map.source_count(), 2);
}

#[test]
fn sources_content_is_kept_by_source_index() {
    let json = br#"{"version":3,"sources":["a.js","b.js","c.js"],"sourcesContent":["let a;\n",null],"mappings":"AAAA,CEAA"}"#;
    let map = SourceMap::parse("m.map", json).unwrap();
    assert_eq!(map.source_content(0), Some("let a;\n"));
    assert_eq!(map.source_content(1), None);
    assert_eq!(map.source_content(2), None);
    assert_eq!(map.source_content(3), None);
    let hit = map.original(0, 1).unwrap();
    assert_eq!(hit.source, "c.js");
    assert_eq!(map.source_content(hit.source_index), None);
}

/// The index map of ECMA-426 §"Index source map", with mappings that
/// decode (the spec's own reuse `;;ABCDE`, whose column goes negative).
#[test]
fn index_maps_are_flattened_by_their_offsets() {
    let json = br#"{
        "version": 3,
        "file": "app.js",
        "sections": [
            {"offset": {"line": 0, "column": 0}, "map": {
                "version": 3, "file": "section.js",
                "sources": ["foo.js", "bar.js"],
                "names": ["src", "maps", "are", "fun"],
                "mappings": "AAAA,E;;ACCCA"}},
            {"offset": {"line": 2, "column": 10}, "map": {
                "version": 3, "file": "another_section.js",
                "sourceRoot": "lib",
                "sources": ["more.js"],
                "sourcesContent": ["more()"],
                "names": ["more", "is", "better"],
                "mappings": "CAEAE;AAEA"}}
        ]
    }"#;
    let map = SourceMap::parse("dist/app.js.map", json).unwrap();
    assert_eq!(at(&map, 0, 0), o("dist/foo.js", 0, 0, None));
    assert_eq!(at(&map, 0, 2), None);
    assert_eq!(at(&map, 2, 0), o("dist/bar.js", 1, 1, Some("src")));
    assert_eq!(at(&map, 2, 9), o("dist/bar.js", 1, 1, Some("src")));
    // From the second section's offset on, its segments answer; before its
    // first segment (column 11) nothing does.
    assert_eq!(at(&map, 2, 10), None);
    assert_eq!(at(&map, 2, 11), o("dist/lib/more.js", 2, 0, Some("better")));
    // Its second line is not shifted by the column offset.
    assert_eq!(at(&map, 3, 0), o("dist/lib/more.js", 4, 0, None));
    let second = map.original(3, 0).unwrap().source_index;
    assert_eq!(map.source_content(second), Some("more()"));
    assert_eq!(map.source_content(0), None);
}

#[test]
fn a_section_ends_where_the_next_one_starts() {
    let json = br#"{"version":3,"sections":[
        {"offset":{"line":0,"column":0},"map":{"version":3,"sources":["a.js"],"mappings":"AAAA,UAAU;AACA"}},
        {"offset":{"line":0,"column":5},"map":{"version":3,"sources":["b.js"],"mappings":"AAAA"}}
    ]}"#;
    let map = SourceMap::parse("m.map", json).unwrap();
    assert_eq!(at(&map, 0, 4), o("a.js", 0, 0, None));
    assert_eq!(at(&map, 0, 5), o("b.js", 0, 0, None));
    // a.js's segment at column 10 and its second line lie in b.js's part.
    assert_eq!(at(&map, 0, 10), o("b.js", 0, 0, None));
    assert_eq!(at(&map, 1, 0), None);
}

#[test]
fn index_maps_that_cannot_be_read_are_refused_with_the_section() {
    let cases: [(&[u8], &str); 5] = [
        (br#"{"version":3,"sections":[{"offset":{"line":0,"column":0},"url":"a.js.map"}]}"#,
         "$.sections[0].url: sections that point at another map (\"a.js.map\") are not supported"),
        (br#"{"version":3,"sections":[{"offset":{"line":0,"column":0},"map":{"version":3,"sections":[]}}]}"#,
         "$.sections[0].map.sections: an index map inside an index map is not allowed"),
        (br#"{"version":3,"sections":[{"offset":{"line":4,"column":0},"map":{"version":3,"sources":[],"mappings":""}},{"offset":{"line":1,"column":0},"map":{"version":3,"sources":[],"mappings":""}}]}"#,
         "$.sections[1].offset: line 1 column 0 comes before the previous section's line 4 column 0"),
        (br#"{"version":3,"sections":[{"offset":{"line":0,"column":0},"map":{"version":3,"sources":["a"],"mappings":"AAAAC"}}]}"#,
         "$.sections[0].map.mappings: generated line 1, segment 1 (byte 0 of the string): name index 1 is out of range (0 names)"),
        (br#"{"version":3,"sections":[],"mappings":""}"#,
         "both `sections` and `mappings`"),
    ];
    for (json, expected) in cases {
        let message = error_of(SourceMap::parse("m.map", json));
        assert!(message.contains(expected), "{message}");
    }
}

#[test]
fn mappings_past_the_budget_are_refused_before_and_while_decoding() {
    let mut budget = Budget { left: 10 };
    let lines = decode_mappings(b";;;;;;;;;;;;", 1, 0, "$", &mut budget).unwrap_err();
    assert_eq!(lines.place, Place::Json("$.mappings".into()));
    assert!(
        lines
            .message
            .contains("13 generated lines: more than 50000000 segments and lines"),
        "{}",
        lines.message
    );
    let mut budget = Budget { left: 10 };
    let segments = decode_mappings(b"A,C,C;C,C,C,C,C,C", 1, 0, "$", &mut budget).unwrap_err();
    assert!(
        segments
            .message
            .starts_with("at generated line 2: more than"),
        "{}",
        segments.message
    );
    let mut budget = Budget { left: 11 };
    assert!(decode_mappings(b"A,C,C;C,C,C,C,C,C", 1, 0, "$", &mut budget).is_ok());
}

#[test]
fn mapping_url_finds_the_last_comment() {
    let url = |text: &str| mapping_url(text.as_bytes()).unwrap();
    assert_eq!(
        url("a();\n//# sourceMappingURL=marked.esm.js.map\n"),
        Some(MapRef::Url("marked.esm.js.map".into()))
    );
    assert_eq!(
        url("//# sourceMappingURL=old.map\na();\n//@ sourceMappingURL=new.map\r\n\n"),
        Some(MapRef::Url("new.map".into()))
    );
    assert_eq!(
        url("a();\n  //#   sourceMappingURL=  spaced.map  "),
        Some(MapRef::Url("spaced.map".into()))
    );
    assert_eq!(url("a();"), None);
    assert_eq!(url(""), None);
    // In code, not a comment: skipped, the real one above is taken.
    assert_eq!(
        url("//# sourceMappingURL=real.map\nx = \"//# sourceMappingURL=\" + url;\n"),
        Some(MapRef::Url("real.map".into()))
    );
    assert_eq!(url("x = '# sourceMappingURL=a.map';"), None);
}

#[test]
fn inline_maps_are_decoded() {
    let json = br#"{"version":3,"sources":["a.js"],"mappings":"AAAA"}"#;
    let b64 = encode_base64(json);
    for header in [
        "application/json;base64",
        "application/json;charset=utf-8;base64",
        "application/json;charset:utf-8;base64",
    ] {
        let bundle = format!("f()\n//# sourceMappingURL=data:{header},{b64}\n");
        assert_eq!(
            mapping_url(bundle.as_bytes()).unwrap(),
            Some(MapRef::Inline(json.to_vec()))
        );
    }
    let bundle = "//# sourceMappingURL=data:application/json,%7B%22version%22%3A3%7D";
    assert_eq!(
        mapping_url(bundle.as_bytes()).unwrap(),
        Some(MapRef::Inline(br#"{"version":3}"#.to_vec()))
    );
    for (bad, expected) in [
        (
            "data:application/json;base64,e30*",
            "line 2: inline source map: '*' at character 3 is not a base64 digit",
        ),
        ("data:application/json;base64,e", "impossible length"),
        (
            "data:text/javascript;base64,e30=",
            "media type \"text/javascript\" is not JSON",
        ),
        ("data:application/json;base64", "has no `,`"),
        (
            "data:application/json,%7",
            "bad percent escape at character 0",
        ),
    ] {
        let bundle = format!("f()\n//# sourceMappingURL={bad}");
        let error = mapping_url(bundle.as_bytes()).unwrap_err();
        assert!(error.to_string().contains(expected), "{error}");
    }
    let not_utf8 = b"//# sourceMappingURL=\xff.map";
    assert!(mapping_url(not_utf8)
        .unwrap_err()
        .to_string()
        .contains("line 1: the sourceMappingURL is not valid UTF-8"));
}

/// Standard base64 with padding, for the tests.
fn encode_base64(bytes: &[u8]) -> String {
    let alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let mut word = [0u8; 3];
        word[..chunk.len()].copy_from_slice(chunk);
        let n = u32::from_be_bytes([0, word[0], word[1], word[2]]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(alphabet[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[test]
fn base64_round_trips_every_length() {
    let data: Vec<u8> = (0..=255u8).collect();
    for len in 0..data.len() {
        let text = encode_base64(&data[..len]);
        assert_eq!(decode_base64(text.as_bytes()).unwrap(), &data[..len]);
        let unpadded = text.trim_end_matches('=');
        assert_eq!(decode_base64(unpadded.as_bytes()).unwrap(), &data[..len]);
    }
}

fn fixture(name: &str) -> Vec<u8> {
    let path = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .join("tests/fixtures/source-maps")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Mozilla's source path as this module writes it: without `file://`,
/// and without `webpack://` and the slash of an empty namespace.
fn as_resolved(mozilla: &str) -> String {
    if let Some(rest) = mozilla.strip_prefix("file://") {
        return rest.to_string();
    }
    if let Some(rest) = mozilla.strip_prefix("webpack://") {
        return rest.trim_start_matches('/').to_string();
    }
    mozilla.to_string()
}

/// Every position of `reference` (written by source-map@0.7.4, see the
/// fixtures' README) answered by the map: (agreed, positions).
fn agreement(map_file: &str, reference: &str) -> (usize, usize) {
    agreement_of(map_file, &fixture(map_file), &fixture(reference))
}

fn agreement_of(map_file: &str, map_text: &[u8], reference: &[u8]) -> (usize, usize) {
    let doc: serde_json::Value = serde_json::from_slice(reference).unwrap();
    let map_path = doc["map_url"]
        .as_str()
        .unwrap()
        .strip_prefix("file://")
        .unwrap();
    let map = SourceMap::parse(map_path, map_text).unwrap();
    let sources: Vec<String> = doc["sources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| as_resolved(s.as_str().unwrap()))
        .collect();
    let names = doc["names"].as_array().unwrap();
    let answers = doc["answers"].as_array().unwrap();
    let mut agreed = 0;
    let mut differ = Vec::new();
    for answer in answers {
        let a: Vec<i64> = answer
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_i64().unwrap())
            .collect();
        let (line, column) = (a[0] as u32, a[1] as u32);
        let expected = (a.len() > 2).then(|| {
            (
                sources[a[2] as usize].clone(),
                a[3] as u32,
                a[4] as u32,
                (a[5] >= 0).then(|| names[a[5] as usize].as_str().unwrap().to_string()),
            )
        });
        let got = at(&map, line, column);
        if got == expected {
            agreed += 1;
        } else if differ.len() < 10 {
            differ.push(format!(
                "{line}:{column}: expected {expected:?}, got {got:?}"
            ));
        }
    }
    assert!(
        differ.is_empty(),
        "{map_file}: {} of {} agree; first differences:\n{}",
        agreed,
        answers.len(),
        differ.join("\n")
    );
    assert!(
        answers.len() > 1000,
        "{map_file}: only {} positions",
        answers.len()
    );
    (agreed, answers.len())
}

#[test]
fn marked_rollup_map_agrees_with_mozillas_source_map() {
    let (agreed, total) = agreement("marked.esm.js.map", "marked.esm.js.reference.json");
    assert_eq!((agreed, total), (6500, 6500));
}

#[test]
fn redux_esbuild_map_agrees_with_mozillas_source_map() {
    let (agreed, total) = agreement("redux.browser.mjs.map", "redux.browser.mjs.reference.json");
    assert_eq!((agreed, total), (1877, 1877));
}

#[test]
fn xterm_webpack_map_agrees_with_mozillas_source_map() {
    let (agreed, total) = agreement(
        "addon-web-links.js.map",
        "addon-web-links.js.reference.json",
    );
    assert_eq!((agreed, total), (1440, 1440));
}

#[test]
fn real_maps_keep_their_sources_and_contents() {
    let map = SourceMap::parse("lib/marked.esm.js.map", &fixture("marked.esm.js.map")).unwrap();
    assert_eq!(map.source_count(), 11);
    assert_eq!(map.source(2), Some("src/Tokenizer.ts"));
    assert!(map
        .source_content(2)
        .unwrap()
        .contains("export class _Tokenizer"));
    let webpack = SourceMap::parse(
        "lib/addon-web-links.js.map",
        &fixture("addon-web-links.js.map"),
    )
    .unwrap();
    assert_eq!(
        webpack.source(1),
        Some("WebLinksAddon/src/WebLinkProvider.ts")
    );
}

/// Cut and scrambled real maps are errors or maps, never a panic.
#[test]
fn damaged_real_maps_never_panic() {
    let text = fixture("redux.browser.mjs.map");
    for cut in (0..text.len()).step_by(97) {
        let _ = SourceMap::parse("m.map", &text[..cut]);
    }
    // A fixed-seed generator: flip bytes inside `mappings`.
    let start = text
        .windows(12)
        .position(|w| w == b"\"mappings\":\"")
        .unwrap()
        + 12;
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/,;";
    for _ in 0..300 {
        let mut damaged = text.clone();
        for _ in 0..4 {
            let i = start + (next() as usize) % 4000;
            damaged[i] = alphabet[(next() as usize) % alphabet.len()];
        }
        if let Ok(map) = SourceMap::parse("m.map", &damaged) {
            for line in 0..3 {
                for column in (0..5000).step_by(7) {
                    let _ = map.original(line, column);
                }
            }
        }
    }
}
