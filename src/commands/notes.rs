//! Notes on inputs as the terminal prints them: a remark that several
//! files of the same name share (every version's `version.toml` with the
//! same unread keys) is one line naming the folders, not one per file.
//! The index lists every note on its own.

use perfatlas::model::Note;

/// Fewest files sharing a remark for it to be said once.
const GROUP: usize = 3;
/// Folders named on a grouped line.
const FOLDERS_SHOWN: usize = 3;

/// Notes alike but for their file's folder: its name, place and text.
type Remark = (String, String, String);

/// The lines to print, in the order the notes came: each group where its
/// first note was.
pub fn lines(notes: &[Note]) -> Vec<String> {
    let key = |n: &Note| {
        (
            file_name(&n.file).to_string(),
            n.place.clone(),
            n.text.clone(),
        )
    };
    let mut groups: Vec<(Remark, Vec<&Note>)> = Vec::new();
    for n in notes {
        match groups.iter_mut().find(|(k, _)| *k == key(n)) {
            Some((_, members)) => members.push(n),
            None => groups.push((key(n), vec![n])),
        }
    }
    groups
        .into_iter()
        .flat_map(|((name, place, text), members)| {
            if members.len() < GROUP {
                return members.iter().map(|n| n.to_string()).collect::<Vec<_>>();
            }
            let folders: Vec<&str> = members.iter().map(|n| folder(&n.file)).collect();
            let shown = folders[..FOLDERS_SHOWN].join(", ");
            let more = match folders.len() - FOLDERS_SHOWN {
                0 => String::new(),
                n => format!(" and {n} more"),
            };
            let place = match place.is_empty() {
                true => String::new(),
                false => format!("{place}: "),
            };
            vec![format!(
                "{} files named {name} ({shown}{more}): {place}{text}",
                folders.len()
            )]
        })
        .collect()
}

fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

fn folder(path: &str) -> &str {
    path.rsplit_once('/').map_or(".", |(dir, _)| dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn note(file: &str, text: &str) -> Note {
        Note {
            file: file.into(),
            place: "line 2".into(),
            text: text.into(),
        }
    }

    #[test]
    fn the_same_remark_on_every_version_toml_is_one_line() {
        let unread = "4 keys perfatlas does not read: `tag`";
        let notes: Vec<Note> = ["2.1.3", "3.0.0", "3.0.7", "3.0.8", "4.0.0"]
            .iter()
            .map(|v| note(&format!("{v}/version.toml"), unread))
            .chain([note("4.0.5/cpu-3.cpuprofile", "1 sample goes back in time")])
            .collect();
        assert_eq!(
            lines(&notes),
            vec![
                "5 files named version.toml (2.1.3, 3.0.0, 3.0.7 and 2 more): line 2: 4 keys perfatlas does not read: `tag`".to_string(),
                "4.0.5/cpu-3.cpuprofile: line 2: 1 sample goes back in time".to_string(),
            ]
        );
        // Two alike are said twice.
        assert_eq!(lines(&notes[..2]).len(), 2);
    }
}
