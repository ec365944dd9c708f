//! Checks of a page's structure, parsed as a browser would.
//!
//! `html5gum` tokenizes the page as the WHATWG spec says (character
//! references decoded, the text of `<title>`, `<style>` and `<script>` read
//! as text, and every parse error of the tokenizer reported, control
//! characters and noncharacters included). On its tokens, [`Page::parse`]
//! builds the part of the HTML tree builder the kpe pages need: elements
//! with their attributes and text, void elements, self-closing tags in
//! SVG, the newline a browser drops after `<pre>`, and the `<tbody>` it
//! adds around a `<tr>` written straight in a `<table>`. Where a browser
//! would guess more (an end tag that closes other open elements, one that
//! closes nothing, an element left open at the end) it records a parse
//! error in [`Page::errors`] instead, so a page without errors has the tree
//! it wrote. Hand-written rather than `scraper` (issue 26: about 30 of
//! Cargo.lock's packages for the few selectors below).
//!
//! Selectors ([`sel`]): a comma-separated list of tag names, `.class`,
//! `#id` and `[attribute]` compounds joined by descendant (space) and
//! child (`>`) combinators; anything else is refused.

// Each test binary that includes this file uses part of it.
#![allow(dead_code)]

use html5gum::{State, Token, Tokenizer};

/// Elements that never have content or an end tag.
const VOID: &[&str] = &[
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track",
    "wbr",
];

/// Elements whose end tag a page may leave out at the end of the document.
const OPEN_AT_END: &[&str] = &["html", "head", "body"];

/// A parsed page: its tree and the parse errors met on the way.
#[derive(Debug)]
pub struct Page {
    /// Every node, in document order; node 0 is the document.
    nodes: Vec<Node>,
    /// The parse errors, in order: the tokenizer's (as the WHATWG spec
    /// names them) and the tree's.
    pub errors: Vec<String>,
}

#[derive(Debug)]
struct Node {
    parent: usize,
    children: Vec<usize>,
    kind: Kind,
}

#[derive(Debug)]
enum Kind {
    Document,
    Element {
        name: String,
        attrs: Vec<(String, String)>,
        /// In SVG or MathML, where `<x/>` closes itself.
        foreign: bool,
        /// Added by the parser, not written in the page (`<tbody>`).
        implied: bool,
    },
    Text(String),
}

fn lossy(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

impl Page {
    /// Parses `text` as a browser would (see the module's documentation).
    pub fn parse(text: &str) -> Self {
        let mut page = Self {
            nodes: vec![Node {
                parent: 0,
                children: Vec::new(),
                kind: Kind::Document,
            }],
            errors: Vec::new(),
        };
        let mut stack = vec![0];
        let mut tokenizer = Tokenizer::new(text);
        let mut drop_newline = false;
        while let Some(token) = tokenizer.next() {
            let Ok(token) = token;
            let top = *stack.last().unwrap_or(&0);
            let after_pre = std::mem::take(&mut drop_newline);
            match token {
                Token::Error(e) => page.errors.push(e.value.to_string()),
                Token::Doctype(_) | Token::Comment(_) => {}
                Token::String(s) => {
                    let mut t = lossy(&s.value);
                    if after_pre && t.starts_with('\n') {
                        t.remove(0);
                    }
                    page.add_text(top, t);
                }
                Token::StartTag(tag) => {
                    let name = lossy(&tag.name);
                    let foreign = page.is_foreign(top) || name == "svg" || name == "math";
                    let mut parent = top;
                    if !foreign && name == "tr" && page.name(top) == Some("table") {
                        parent = page.add_element(top, "tbody".to_owned(), Vec::new(), false, true);
                        stack.push(parent);
                    }
                    let attrs = tag
                        .attributes
                        .iter()
                        .map(|(k, v)| (lossy(k), lossy(&v.value)))
                        .collect();
                    let id = page.add_element(parent, name.clone(), attrs, foreign, false);
                    if foreign {
                        if !tag.self_closing {
                            stack.push(id);
                        }
                        continue;
                    }
                    if VOID.contains(&name.as_str()) {
                        continue;
                    }
                    if tag.self_closing {
                        page.errors.push(format!(
                            "non-void-html-element-start-tag-with-trailing-solidus <{name}/>"
                        ));
                    }
                    stack.push(id);
                    let state = match name.as_str() {
                        "title" | "textarea" => Some(State::RcData),
                        "style" | "xmp" | "iframe" | "noembed" | "noframes" | "noscript" => {
                            Some(State::RawText)
                        }
                        "script" => Some(State::ScriptData),
                        "plaintext" => Some(State::PlainText),
                        _ => None,
                    };
                    if let Some(state) = state {
                        tokenizer.set_state(state);
                    }
                    drop_newline = matches!(name.as_str(), "pre" | "textarea" | "listing");
                }
                Token::EndTag(tag) => {
                    let name = lossy(&tag.name);
                    match stack.iter().rposition(|&n| page.name(n) == Some(&name)) {
                        Some(k) if k > 0 => {
                            let unclosed: Vec<String> = stack[k + 1..]
                                .iter()
                                .filter(|&&n| !page.is_implied(n))
                                .filter_map(|&n| page.name(n).map(|s| format!("<{s}>")))
                                .collect();
                            if !unclosed.is_empty() {
                                page.errors.push(format!(
                                    "</{name}> closes the unclosed {}",
                                    unclosed.join(" ")
                                ));
                            }
                            stack.truncate(k);
                        }
                        _ => page.errors.push(format!("</{name}> closes nothing")),
                    }
                }
            }
        }
        for &n in &stack[1..] {
            if let Some(name) = page.name(n)
                && !page.is_implied(n)
                && !OPEN_AT_END.contains(&name)
            {
                page.errors
                    .push(format!("<{name}> is still open at the end"));
            }
        }
        page
    }

    fn add_element(
        &mut self,
        parent: usize,
        name: String,
        attrs: Vec<(String, String)>,
        foreign: bool,
        implied: bool,
    ) -> usize {
        self.add(
            parent,
            Kind::Element {
                name,
                attrs,
                foreign,
                implied,
            },
        )
    }

    fn add_text(&mut self, parent: usize, text: String) {
        if text.is_empty() {
            return;
        }
        if let Some(&last) = self.nodes[parent].children.last()
            && let Kind::Text(t) = &mut self.nodes[last].kind
        {
            t.push_str(&text);
            return;
        }
        self.add(parent, Kind::Text(text));
    }

    fn add(&mut self, parent: usize, kind: Kind) -> usize {
        let id = self.nodes.len();
        self.nodes.push(Node {
            parent,
            children: Vec::new(),
            kind,
        });
        self.nodes[parent].children.push(id);
        id
    }

    fn name(&self, n: usize) -> Option<&str> {
        match &self.nodes[n].kind {
            Kind::Element { name, .. } => Some(name),
            _ => None,
        }
    }

    fn is_foreign(&self, n: usize) -> bool {
        matches!(self.nodes[n].kind, Kind::Element { foreign: true, .. })
    }

    fn is_implied(&self, n: usize) -> bool {
        matches!(self.nodes[n].kind, Kind::Element { implied: true, .. })
    }

    /// The page's elements that match `selector`, in document order.
    pub fn select(&self, selector: &Selector) -> std::vec::IntoIter<Element<'_>> {
        Element { page: self, id: 0 }.select(selector)
    }

    /// Ids of the nodes below `n`, in document order.
    fn below(&self, n: usize, out: &mut Vec<usize>) {
        for &c in &self.nodes[n].children {
            out.push(c);
            self.below(c, out);
        }
    }
}

/// An element of a [`Page`].
#[derive(Debug, Clone, Copy)]
pub struct Element<'a> {
    page: &'a Page,
    id: usize,
}

impl<'a> Element<'a> {
    /// The tag name, in lower case.
    pub fn name(&self) -> &'a str {
        self.page.name(self.id).unwrap_or("")
    }

    /// The value of the attribute `name`, decoded.
    pub fn attr(&self, name: &str) -> Option<&'a str> {
        match &self.page.nodes[self.id].kind {
            Kind::Element { attrs, .. } => attrs
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.as_str()),
            _ => None,
        }
    }

    fn has_class(&self, class: &str) -> bool {
        self.attr("class")
            .is_some_and(|c| c.split_ascii_whitespace().any(|c| c == class))
    }

    /// The text below the element, decoded, in document order.
    pub fn text(&self) -> std::vec::IntoIter<&'a str> {
        let mut ids = Vec::new();
        self.page.below(self.id, &mut ids);
        let texts: Vec<&'a str> = ids
            .into_iter()
            .filter_map(|n| match &self.page.nodes[n].kind {
                Kind::Text(t) => Some(t.as_str()),
                _ => None,
            })
            .collect();
        texts.into_iter()
    }

    /// The elements below this one that match `selector` (whose
    /// combinators may reach above it), in document order.
    pub fn select(&self, selector: &Selector) -> std::vec::IntoIter<Element<'a>> {
        let mut ids = Vec::new();
        self.page.below(self.id, &mut ids);
        let found: Vec<Element<'a>> = ids
            .into_iter()
            .map(|id| Element {
                page: self.page,
                id,
            })
            .filter(|e| {
                e.page.name(e.id).is_some()
                    && selector
                        .alternatives
                        .iter()
                        .any(|c| e.matches(c, c.len() - 1))
            })
            .collect();
        found.into_iter()
    }

    fn parent(&self) -> Option<Element<'a>> {
        let parent = self.page.nodes[self.id].parent;
        (self.id != 0 && self.page.name(parent).is_some()).then_some(Element {
            page: self.page,
            id: parent,
        })
    }

    /// Whether the element matches `complex[..=k]`, `complex[k]` being its
    /// own compound.
    fn matches(&self, complex: &[(Combinator, Compound)], k: usize) -> bool {
        let (combinator, compound) = &complex[k];
        let own = compound.tag.as_ref().is_none_or(|t| t == self.name())
            && compound.ids.iter().all(|id| self.attr("id") == Some(id))
            && compound.classes.iter().all(|c| self.has_class(c))
            && compound.attrs.iter().all(|a| self.attr(a).is_some());
        if !own {
            return false;
        }
        if k == 0 {
            return true;
        }
        match combinator {
            Combinator::Child => self.parent().is_some_and(|p| p.matches(complex, k - 1)),
            Combinator::Descendant => {
                let mut up = self.parent();
                while let Some(a) = up {
                    if a.matches(complex, k - 1) {
                        return true;
                    }
                    up = a.parent();
                }
                false
            }
        }
    }
}

/// A parsed selector list.
#[derive(Debug)]
pub struct Selector {
    /// Each complex selector of the list: its compounds from left to
    /// right, each with the combinator that joins it to the one before.
    alternatives: Vec<Vec<(Combinator, Compound)>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Combinator {
    Descendant,
    Child,
}

#[derive(Debug, Default)]
struct Compound {
    tag: Option<String>,
    ids: Vec<String>,
    classes: Vec<String>,
    attrs: Vec<String>,
}

impl Compound {
    fn is_empty(&self) -> bool {
        self.tag.is_none()
            && self.ids.is_empty()
            && self.classes.is_empty()
            && self.attrs.is_empty()
    }
}

impl Selector {
    /// Parses `css`.
    ///
    /// # Errors
    ///
    /// Anything outside the subset of the module's documentation.
    pub fn parse(css: &str) -> Result<Self, String> {
        let mut alternatives = Vec::new();
        for part in css.split(',') {
            alternatives.push(complex(part).map_err(|e| format!("{css:?}: {e}"))?);
        }
        Ok(Self { alternatives })
    }
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '-' || c == '_'
}

fn complex(text: &str) -> Result<Vec<(Combinator, Compound)>, String> {
    let mut out: Vec<(Combinator, Compound)> = Vec::new();
    let mut chars = text.trim().chars().peekable();
    let mut combinator = Combinator::Descendant;
    let mut current = Compound::default();
    let ident = |chars: &mut std::iter::Peekable<std::str::Chars<'_>>| {
        let mut s = String::new();
        while let Some(&c) = chars.peek().filter(|c| is_ident(**c)) {
            s.push(c);
            chars.next();
        }
        if s.is_empty() {
            Err("a name is missing".to_owned())
        } else {
            Ok(s)
        }
    };
    while let Some(&c) = chars.peek() {
        match c {
            ' ' | '>' => {
                let mut child = false;
                while let Some(&c) = chars.peek().filter(|c| matches!(c, ' ' | '>')) {
                    if c == '>' {
                        if child {
                            return Err("`>>`".to_owned());
                        }
                        child = true;
                    }
                    chars.next();
                }
                if current.is_empty() {
                    return Err("a combinator with nothing before it".to_owned());
                }
                out.push((combinator, std::mem::take(&mut current)));
                combinator = if child {
                    Combinator::Child
                } else {
                    Combinator::Descendant
                };
            }
            '.' | '#' => {
                chars.next();
                let name = ident(&mut chars)?;
                if c == '.' {
                    current.classes.push(name);
                } else {
                    current.ids.push(name);
                }
            }
            '[' => {
                chars.next();
                let name = ident(&mut chars)?;
                if chars.next() != Some(']') {
                    return Err("only [attribute] (presence) is known".to_owned());
                }
                current.attrs.push(name.to_ascii_lowercase());
            }
            c if is_ident(c) && current.is_empty() => {
                current.tag = Some(ident(&mut chars)?.to_ascii_lowercase());
            }
            c => return Err(format!("{c:?} is not known here")),
        }
    }
    if current.is_empty() {
        return Err("an empty selector".to_owned());
    }
    out.push((combinator, current));
    Ok(out)
}

/// A selector.
///
/// # Panics
///
/// When `css` is outside the subset [`Selector::parse`] knows.
pub fn sel(css: &str) -> Selector {
    Selector::parse(css).unwrap()
}

/// Asserts that the page parses without an error and needs nothing from
/// elsewhere: no scripts, links out, external images, frames or styles;
/// only in-page anchors.
pub fn assert_self_contained(text: &str) {
    let doc = Page::parse(text);
    assert!(doc.errors.is_empty(), "{:?}", doc.errors);
    assert_eq!(doc.select(&sel("script, link, img, iframe")).count(), 0);
    for attr in ["href", "src"] {
        for e in doc.select(&sel(&format!("[{attr}]"))) {
            let v = e.attr(attr).unwrap();
            assert!(v.starts_with('#'), "{attr}={v}");
        }
    }
    assert!(!text.contains("http://") && !text.contains("https://"));
    assert!(!text.contains("url("));
}
