//! Self-contained HTML pages for people who never saw the code: a page
//! shell with inline CSS, sections, tables, notes, and Kpé boards drawn as
//! inline SVG with chosen pits marked. No scripts, fonts or images from
//! anywhere else: one file that opens offline.
//!
//! Text goes in escaped ([`Markup::text`]); only this module writes tags.
//!
//! ```
//! use kpe::html::{self, Board, Markup, Page, Table, Tone};
//! use kpe::Position;
//!
//! let mut page = Page::new("A report");
//! page.intro("What this page is about.");
//! let mut table = Table::new(&["depth", "nodes"]);
//! table.row([Markup::text("1"), Markup::text("4")]);
//! let start = Position::initial();
//! let s4 = "S4".parse()?;
//! let mut body = html::note(Tone::Bad, Markup::text("one divergence <b>"));
//! body.push(table.finish());
//! body.push(html::boards_svg(&[Board::new(&start, &[s4], "before S4")]));
//! page.section("Figures", body);
//! let text = page.finish();
//! assert!(text.starts_with("<!DOCTYPE html>"));
//! assert!(text.contains("one divergence &lt;b&gt;"));
//! assert_eq!(text.matches("<svg").count(), 1);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::fmt::{self, Write as _};

use crate::board::{Pit, Player};
use crate::position::Position;

/// A piece of HTML that is safe to put in a page: text was escaped when it
/// came in, and tags were written by this module.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Markup(String);

impl Markup {
    /// Nothing.
    #[must_use]
    pub fn new() -> Markup {
        Markup::default()
    }

    /// Plain text, escaped.
    #[must_use]
    pub fn text(text: &str) -> Markup {
        Markup(escape(text))
    }

    /// Text in `<code>`.
    #[must_use]
    pub fn code(text: &str) -> Markup {
        element("code", None, Markup::text(text))
    }

    /// Text with the inline Markdown of the spec: `` `code` ``, `**bold**`
    /// and `*emphasis*`.
    #[must_use]
    pub fn markdown(text: &str) -> Markup {
        let mut out = String::new();
        let mut rest = text;
        while !rest.is_empty() {
            let (marker, tag) = if rest.starts_with('`') {
                ("`", "code")
            } else if rest.starts_with("**") {
                ("**", "strong")
            } else if rest.starts_with('*') {
                ("*", "em")
            } else {
                let next = rest.find(['`', '*']).unwrap_or(rest.len());
                out += &escape(&rest[..next]);
                rest = &rest[next..];
                continue;
            };
            let body = &rest[marker.len()..];
            match body.find(marker) {
                Some(end) if end > 0 => {
                    let inner = if tag == "code" {
                        escape(&body[..end])
                    } else {
                        Markup::markdown(&body[..end]).0
                    };
                    let _ = write!(out, "<{tag}>{inner}</{tag}>");
                    rest = &body[end + marker.len()..];
                }
                _ => {
                    out += &escape(marker);
                    rest = body;
                }
            }
        }
        Markup(out)
    }

    /// Appends `other`.
    pub fn push(&mut self, other: Markup) {
        self.0.push_str(&other.0);
    }

    /// The HTML text.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Markup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl FromIterator<Markup> for Markup {
    fn from_iter<I: IntoIterator<Item = Markup>>(iter: I) -> Markup {
        let mut out = Markup::new();
        for m in iter {
            out.push(m);
        }
        out
    }
}

/// Escapes text for HTML element content and quoted attribute values.
/// Characters HTML forbids in a document (the C0 controls but tab, line
/// feed, form feed and carriage return; DEL and the C1 controls;
/// noncharacters such as U+FFFE) are shown as `\u{...}` instead, so that
/// an engine name or message holding them still gives a clean page.
#[must_use]
pub fn escape(text: &str) -> String {
    let forbidden = |c: char| {
        let n = u32::from(c);
        (c.is_control() && !matches!(c, '\t' | '\n' | '\u{c}' | '\r'))
            || (0xFDD0..=0xFDEF).contains(&n)
            || n & 0xFFFE == 0xFFFE
    };
    if text.chars().any(forbidden) {
        let shown: String = text
            .chars()
            .map(|c| {
                if forbidden(c) {
                    format!("\\u{{{:x}}}", u32::from(c))
                } else {
                    c.to_string()
                }
            })
            .collect();
        return html_escape::encode_quoted_attribute(&shown).into_owned();
    }
    html_escape::encode_quoted_attribute(text).into_owned()
}

/// `<tag class="class">inner</tag>`, for the block and inline elements a
/// report needs (`p`, `div`, `span`, `strong`, `em`, `code`, `h3`, `li`, ...).
#[must_use]
pub fn element(tag: &'static str, class: Option<&str>, inner: Markup) -> Markup {
    let class = class.map_or_else(String::new, |c| format!(" class=\"{}\"", escape(c)));
    Markup(format!("<{tag}{class}>{inner}</{tag}>"))
}

/// A paragraph of plain text.
#[must_use]
pub fn paragraph(text: &str) -> Markup {
    element("p", None, Markup::text(text))
}

/// A line break inside a block.
#[must_use]
pub fn line_break() -> Markup {
    Markup("<br>".to_owned())
}

/// A preformatted block (YAML, diagrams, traces).
#[must_use]
pub fn pre(text: &str) -> Markup {
    element("pre", None, Markup::text(text))
}

/// A block folded away under `summary` until opened.
#[must_use]
pub fn details(summary: &str, body: Markup) -> Markup {
    Markup(format!(
        "<details><summary>{}</summary>{body}</details>",
        escape(summary)
    ))
}

/// A bulleted list.
#[must_use]
pub fn list(items: impl IntoIterator<Item = Markup>) -> Markup {
    let items: Markup = items.into_iter().map(|i| element("li", None, i)).collect();
    element("ul", None, items)
}

/// How a note reads: good news, bad news, or neutral.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tone {
    /// A pass: green.
    Good,
    /// A failure or a change: red.
    Bad,
    /// Neither: blue.
    Info,
}

/// A boxed note, e.g. a verdict block.
#[must_use]
pub fn note(tone: Tone, body: Markup) -> Markup {
    let class = match tone {
        Tone::Good => "note good",
        Tone::Bad => "note bad",
        Tone::Info => "note info",
    };
    element("div", Some(class), body)
}

/// A table with a header row; rows may be marked (highlighted).
#[derive(Clone, Debug)]
pub struct Table {
    head: Markup,
    rows: Markup,
}

impl Table {
    /// A table with these column headings.
    #[must_use]
    pub fn new(headers: &[&str]) -> Table {
        let head = headers
            .iter()
            .map(|h| element("th", None, Markup::text(h)))
            .collect();
        Table {
            head,
            rows: Markup::new(),
        }
    }

    /// Adds a row.
    pub fn row(&mut self, cells: impl IntoIterator<Item = Markup>) {
        self.add(cells, None);
    }

    /// Adds a highlighted row (e.g. the first differing ply).
    pub fn marked_row(&mut self, cells: impl IntoIterator<Item = Markup>) {
        self.add(cells, Some("marked"));
    }

    fn add(&mut self, cells: impl IntoIterator<Item = Markup>, class: Option<&str>) {
        let cells: Markup = cells.into_iter().map(|c| element("td", None, c)).collect();
        self.rows.push(element("tr", class, cells));
    }

    /// The table's HTML.
    #[must_use]
    pub fn finish(self) -> Markup {
        Markup(format!(
            "<div class=\"scroll\"><table><thead><tr>{}</tr></thead><tbody>{}</tbody></table></div>",
            self.head, self.rows
        ))
    }
}

/// One board to draw: a position, the pits to mark, and a caption.
#[derive(Clone, Debug)]
pub struct Board<'a> {
    /// The position drawn.
    pub position: &'a Position,
    /// The pits drawn marked (thick orange outline).
    pub marks: &'a [Pit],
    /// The caption above the board.
    pub label: &'a str,
}

impl<'a> Board<'a> {
    /// A board of `position` with `marks` marked, captioned `label`.
    #[must_use]
    pub fn new(position: &'a Position, marks: &'a [Pit], label: &'a str) -> Board<'a> {
        Board {
            position,
            marks,
            label,
        }
    }
}

/// Width of one board in the SVG's units.
const BOARD_W: u32 = 480;
/// Height of one board.
const BOARD_H: u32 = 200;

/// One position as an inline SVG board with `marks` marked.
#[must_use]
pub fn board_svg(position: &Position, marks: &[Pit]) -> Markup {
    boards_svg(&[Board::new(position, marks, "")])
}

/// Several boards side by side in one inline `<svg>`: North's row on top
/// (N4 to N1 from the left, as South sees it), South's below (S1 to S4),
/// each pit with its stone count; marked pits have a thick orange outline,
/// pits their owner never used a dashed one, and the player to move an
/// arrow.
#[must_use]
pub fn boards_svg(boards: &[Board<'_>]) -> Markup {
    let width = BOARD_W * u32::try_from(boards.len().max(1)).unwrap_or(1);
    let title: Vec<String> = boards.iter().map(|b| b.position.to_string()).collect();
    let mut svg = format!(
        "<svg class=\"board\" viewBox=\"0 0 {width} {BOARD_H}\" width=\"{width}\" height=\"{BOARD_H}\" role=\"img\"><title>{}</title>",
        escape(&title.join(" | "))
    );
    for (i, b) in boards.iter().enumerate() {
        let x = BOARD_W * u32::try_from(i).unwrap_or(0);
        let _ = write!(svg, "<g transform=\"translate({} 0)\">", x + 20);
        one_board(&mut svg, b);
        svg.push_str("</g>");
    }
    svg.push_str("</svg>");
    Markup(svg)
}

fn one_board(svg: &mut String, b: &Board<'_>) {
    let p = b.position;
    let _ = write!(
        svg,
        "<text x=\"-10\" y=\"16\" class=\"caption\">{}</text>",
        escape(b.label)
    );
    let _ = write!(
        svg,
        "<rect x=\"44\" y=\"40\" width=\"290\" height=\"130\" rx=\"24\" class=\"wood\"/>"
    );
    for player in Player::BOTH {
        let (y, name) = match player {
            Player::North => (50, "North"),
            Player::South => (110, "South"),
        };
        let to_move = if p.to_move() == player { "▶ " } else { "" };
        let _ = write!(
            svg,
            "<text x=\"40\" y=\"{}\" class=\"side\" text-anchor=\"end\">{to_move}{name}</text>",
            y + 30
        );
        let _ = write!(
            svg,
            "<text x=\"342\" y=\"{}\" class=\"side\">captured {}</text>",
            y + 30,
            p.captured(player)
        );
        for pit in player.pits() {
            let col = match player {
                Player::North => 4 - u32::from(pit.number()),
                Player::South => u32::from(pit.number()) - 1,
            };
            let px = 54 + col * 70;
            let marked = b.marks.contains(&pit);
            let mut class = String::from("pit");
            if marked {
                class.push_str(" marked");
            }
            if !p.has_used(pit) {
                class.push_str(" unused");
            }
            let _ = write!(
                svg,
                "<rect x=\"{px}\" y=\"{y}\" width=\"60\" height=\"50\" rx=\"14\" class=\"{class}\"><title>{pit}: {} stones{}</title></rect>",
                p.stones(pit),
                if marked { " (differs)" } else { "" }
            );
            let _ = write!(
                svg,
                "<text x=\"{}\" y=\"{}\" class=\"count\" text-anchor=\"middle\">{}</text>",
                px + 30,
                y + 33,
                p.stones(pit)
            );
            let label_y = match player {
                Player::North => y - 4,
                Player::South => y + 66,
            };
            let _ = write!(
                svg,
                "<text x=\"{}\" y=\"{label_y}\" class=\"name\" text-anchor=\"middle\">{pit}</text>",
                px + 30
            );
        }
    }
    // Sowing runs counter-clockwise: right along South, left along North.
    let _ = write!(
        svg,
        "<text x=\"189\" y=\"196\" class=\"name\" text-anchor=\"middle\">sowing: S1 → S4, then N1 → N4 (counter-clockwise)</text>"
    );
}

/// The inline style sheet of every page.
const STYLE: &str = "
:root { color-scheme: light; }
body { font: 16px/1.5 system-ui, -apple-system, 'Segoe UI', sans-serif; margin: 0 auto; max-width: 72rem; padding: 1rem 2rem 4rem; color: #1d1d1f; background: #fdfcf8; overflow-wrap: break-word; }
h1 { overflow-wrap: anywhere; }
h1 { font-size: 1.8rem; margin: 1rem 0 .5rem; }
h2 { font-size: 1.35rem; margin-top: 2.5rem; border-bottom: 2px solid #e5dcc3; padding-bottom: .2rem; }
h3 { font-size: 1.1rem; margin-top: 1.6rem; }
code, pre { font-family: ui-monospace, 'SFMono-Regular', Menlo, Consolas, monospace; font-size: .9em; }
code { background: #f1ede2; padding: 0 .25em; border-radius: 3px; }
pre { background: #f6f3ea; padding: .8rem 1rem; overflow-x: auto; border-radius: 6px; }
blockquote { margin: .8rem 0; padding: .4rem 1rem; border-left: 4px solid #c8a96a; background: #faf6ec; }
.intro { font-size: 1.05rem; color: #444; }
.note { padding: .6rem 1rem; border-radius: 6px; margin: .8rem 0; border-left: 6px solid; }
.note.good { background: #ebfbee; border-color: #2f9e44; }
.note.bad { background: #fff5f5; border-color: #e03131; }
.note.info { background: #e7f5ff; border-color: #1c7ed6; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; margin: .6rem 0; font-size: .92rem; }
th, td { border: 1px solid #ddd3bb; padding: .3rem .55rem; text-align: left; vertical-align: top; }
th { background: #f1ead8; }
tr.marked td { background: #fff4e6; font-weight: 600; }
figure { margin: 1rem 0; }
figcaption { color: #555; font-size: .92rem; }
svg.board { max-width: 100%; height: auto; }
svg .wood { fill: #e9d8b4; stroke: #8a6d3b; stroke-width: 2; }
svg .pit { fill: #fbf6ea; stroke: #8a6d3b; stroke-width: 1.5; }
svg .pit.unused { stroke-dasharray: 5 3; }
svg .pit.marked { fill: #ffe8cc; stroke: #e8590c; stroke-width: 5; }
svg .count { font: bold 22px system-ui, sans-serif; fill: #1d1d1f; }
svg .name { font: 12px system-ui, sans-serif; fill: #555; }
svg .side { font: 13px system-ui, sans-serif; fill: #333; }
svg .caption { font: bold 14px system-ui, sans-serif; fill: #1d1d1f; }
nav ol { columns: 2; }
footer { margin-top: 3rem; color: #666; font-size: .9rem; }
svg, img { max-width: 100%; height: auto; }
@media (max-width: 40rem) {
  body { padding: .5rem .75rem 3rem; }
  h1 { font-size: 1.4rem; }
  h2 { font-size: 1.2rem; }
  nav ol { columns: 1; padding-left: 1.2rem; }
  th, td { padding: .25rem .4rem; }
  dd { margin-left: 1rem; }
  pre { padding: .6rem .6rem; }
}
";

/// A whole page: title, an optional introduction, sections with a table of
/// contents, and a footer.
#[derive(Clone, Debug)]
pub struct Page {
    title: String,
    intro: Markup,
    sections: Vec<(String, String, Markup)>,
    footer: Markup,
}

impl Page {
    /// An empty page titled `title` (the `<title>` and the `<h1>`).
    #[must_use]
    pub fn new(title: &str) -> Page {
        Page {
            title: title.to_owned(),
            intro: Markup::new(),
            sections: Vec::new(),
            footer: Markup::new(),
        }
    }

    /// A paragraph under the title.
    pub fn intro(&mut self, text: &str) {
        self.intro
            .push(element("p", Some("intro"), Markup::text(text)));
    }

    /// Any markup under the title, before the sections (e.g. a verdict).
    pub fn lead(&mut self, body: Markup) {
        self.intro.push(body);
    }

    /// A section with an `<h2>` heading, listed in the table of contents.
    pub fn section(&mut self, title: &str, body: Markup) {
        let id = format!("s{}", self.sections.len() + 1);
        self.sections.push((id, title.to_owned(), body));
    }

    /// A small-print line at the bottom.
    pub fn footer(&mut self, text: &str) {
        self.footer.push(paragraph(text));
    }

    /// The complete HTML document.
    #[must_use]
    pub fn finish(self) -> String {
        let mut out = String::new();
        let title = escape(&self.title);
        let _ = write!(
            out,
            "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>{title}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<header><h1>{title}</h1>{}</header>\n",
            self.intro
        );
        if self.sections.len() > 1 {
            out.push_str("<nav><ol>");
            for (id, t, _) in &self.sections {
                let _ = write!(out, "<li><a href=\"#{id}\">{}</a></li>", escape(t));
            }
            out.push_str("</ol></nav>\n");
        }
        out.push_str("<main>\n");
        for (id, t, body) in &self.sections {
            let _ = write!(
                out,
                "<section id=\"{id}\">\n<h2>{}</h2>\n{body}\n</section>\n",
                escape(t)
            );
        }
        let _ = write!(
            out,
            "</main>\n<footer>{}</footer>\n</body>\n</html>\n",
            self.footer
        );
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_escaped_and_markdown_becomes_tags() {
        assert_eq!(
            Markup::text("<a href=\"x\">&").as_str(),
            "&lt;a href=&quot;x&quot;&gt;&amp;"
        );
        assert_eq!(escape("it's é"), "it&#x27;s é");
        assert_eq!(
            Markup::markdown("**SOW-4** *Reading I1.* `skip-<x>` a*b").as_str(),
            "<strong>SOW-4</strong> <em>Reading I1.</em> <code>skip-&lt;x&gt;</code> a*b"
        );
    }

    #[test]
    fn a_board_marks_exactly_the_marked_pits() {
        let p = Position::initial();
        let marks: [Pit; 2] = ["S1".parse().unwrap(), "N4".parse().unwrap()];
        let svg = board_svg(&p, &marks).0;
        assert_eq!(svg.matches("class=\"pit marked").count(), 2);
        assert_eq!(svg.matches("(differs)").count(), 2);
        assert_eq!(svg.matches("class=\"pit").count(), 8);
        // Nothing used yet: every pit is drawn as never used.
        assert_eq!(svg.matches("unused").count(), 8);
        assert!(svg.contains("▶ South"));
    }

    #[test]
    fn a_page_has_its_title_sections_and_contents() {
        let mut page = Page::new("T & U");
        page.intro("hello");
        page.section("One", paragraph("a"));
        page.section("Two", paragraph("b"));
        let html = page.finish();
        assert!(html.contains("<title>T &amp; U</title>"));
        assert!(html.contains("<a href=\"#s2\">Two</a>"));
        assert!(html.contains("<section id=\"s1\">\n<h2>One</h2>"));
        let mut t = Table::new(&["a"]);
        t.marked_row([Markup::text("x")]);
        assert!(
            t.finish()
                .as_str()
                .contains("<tr class=\"marked\"><td>x</td></tr>")
        );
    }
}
