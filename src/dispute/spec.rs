//! The disputed readings as `spec/RULES.md` states them: the rule paragraph
//! tagged with the reading, and its row of the "Readings" table.

use serde::Serialize;

use crate::profile::Switch;

/// The rules text, built in so the report quotes the spec it was built with.
const RULES: &str = include_str!("../../spec/RULES.md");

/// One disputed reading, in the spec's words.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Reading {
    /// The switch name, e.g. `skip-origin`.
    pub switch: String,
    /// The reading's ID, `I1`, `I2`, ...
    pub reading: String,
    /// The rule ID whose paragraph names the reading, e.g. `SOW-4`.
    pub rule: String,
    /// That rule's paragraph of spec/RULES.md, as written there (Markdown,
    /// joined into one line).
    pub paragraph: String,
    /// The open question, from the spec's table of readings.
    pub question: String,
    /// The default reading's answer.
    pub default: String,
    /// The alternative reading's answer (the switch).
    pub alternative: String,
    /// Why the default is the default.
    pub why_default: String,
}

/// The reading `switch` selects the alternative of, from spec/RULES.md.
///
/// # Panics
///
/// Never for the RULES.md built into kpe: a unit test reads every switch.
#[must_use]
pub fn reading(switch: Switch) -> Reading {
    let id = switch.reading();
    let tag = format!("*Reading {id}.*");
    let paragraph = bullets(RULES)
        .into_iter()
        .find(|b| b.contains(&tag))
        .unwrap_or_default();
    let rule = paragraph
        .strip_prefix("**")
        .and_then(|rest| rest.split("**").next())
        .unwrap_or_default()
        .to_owned();
    let row_start = format!("| {id} |");
    let cells: Vec<String> = RULES
        .lines()
        .find(|l| l.starts_with(&row_start))
        .map(|l| {
            l.trim_matches('|')
                .split(" | ")
                .map(|c| c.trim().to_owned())
                .collect()
        })
        .unwrap_or_default();
    let cell = |k: usize| cells.get(k).cloned().unwrap_or_default();
    Reading {
        switch: switch.name().to_owned(),
        reading: id.to_owned(),
        rule,
        paragraph,
        question: cell(2),
        default: cell(3),
        alternative: cell(4),
        why_default: cell(5),
    }
}

/// The top-level bullets (`- ` at the start of a line, continued by
/// indented lines) of a Markdown text, each joined into one line without
/// its `- `.
fn bullets(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut open = false;
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("- ") {
            out.push(rest.trim().to_owned());
            open = true;
        } else if open && line.starts_with("  ") && !line.trim().is_empty() {
            let last = out.last_mut().expect("a bullet is open");
            last.push(' ');
            last.push_str(line.trim());
        } else {
            open = false;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_switch_finds_its_paragraph_and_table_row() {
        for switch in Switch::ALL {
            let rule = switch.rule();
            let r = reading(switch);
            assert_eq!(r.rule, rule, "{switch}");
            assert!(
                r.paragraph.starts_with(&format!("**{rule}**")),
                "{switch}: {}",
                r.paragraph
            );
            assert!(
                r.paragraph
                    .contains(&format!("*Reading {}.*", switch.reading())),
                "{switch}"
            );
            assert!(
                r.alternative.contains(&format!("`{}`", switch.name())),
                "{switch}: {}",
                r.alternative
            );
            assert!(!r.question.is_empty() && !r.default.is_empty() && !r.why_default.is_empty());
        }
        let r = reading(Switch::SkipOrigin);
        // The default column, whichever reading it holds (a change of I1
        // turns it), and a paragraph that states both readings.
        assert!(["yes", "no"].contains(&r.default.as_str()), "{}", r.default);
        assert!(
            r.paragraph.contains("the origin pit is passed over")
                && r.paragraph.contains("the origin pit is sown into"),
            "{}",
            r.paragraph
        );
        assert!(
            !r.paragraph.contains("- **"),
            "one paragraph only: {}",
            r.paragraph
        );
    }

    /// The spec's two tables of readings list exactly the rows of the code's
    /// table ([`crate::READINGS`]), in order: the settings table word for
    /// word, the questions table by reading, rule and switch.
    #[test]
    fn the_spec_tables_of_readings_are_the_code_table() {
        let mut settings = String::from(
            "| setting | reading | values (switch form of the second) |\n|---|---|---|\n",
        );
        for row in crate::READINGS {
            settings.push_str(&format!(
                "| `{}` | {} | `{}`, `{}` (`{}`) |\n",
                row.setting, row.id, row.values[0], row.values[1], row.switch
            ));
        }
        assert!(
            RULES.contains(&settings),
            "spec/RULES.md, \"Readings\": the settings table should read\n{settings}"
        );
        // The questions table: every row that starts with a reading ID.
        let rows: Vec<Vec<&str>> = RULES
            .lines()
            .filter(|l| l.starts_with("| I"))
            .map(|l| l.trim_matches('|').split(" | ").map(str::trim).collect())
            .collect();
        let expected: Vec<(String, String, String)> = crate::READINGS
            .iter()
            .map(|r| {
                (
                    r.id.to_owned(),
                    r.rule.to_owned(),
                    format!("`{}`", r.switch),
                )
            })
            .collect();
        let found: Vec<(String, String, String)> = rows
            .iter()
            .map(|cells| {
                let switch = cells.get(4).and_then(|c| c.split(':').next()).unwrap_or("");
                (cells[0].to_owned(), cells[1].to_owned(), switch.to_owned())
            })
            .collect();
        assert_eq!(found, expected, "spec/RULES.md's questions table");
        // Each reading's rule paragraph is tagged with it, once.
        for row in crate::READINGS {
            let tag = format!("*Reading {}.*", row.id);
            assert_eq!(RULES.matches(&tag).count(), 1, "{tag}");
        }
    }
}
