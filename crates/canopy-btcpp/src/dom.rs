//! XML text → a small element tree with byte offsets, nothing more.
//!
//! quick-xml does the lexing; this module bounds what a stranger's file may
//! make it build (elements, nesting) and refuses what BehaviorTree.CPP
//! files never need and attackers like: document type declarations (and
//! with them entity expansion), encodings other than UTF-8. Text between
//! elements is ignored, as BehaviorTree.CPP ignores it.
//!
//! Attribute values are read as tinyxml2, BehaviorTree.CPP's XML parser,
//! reads them ([`attribute_value`]), not as the XML specification says:
//! files written for BehaviorTree.CPP rely on it — its own examples write
//! `code="a==42 && b=='john'"`, a bare `&` an XML parser refuses. The
//! five named references and numeric ones are replaced; any other `&` is
//! itself; line breaks stay line breaks (`\r\n` and `\r` become `\n`)
//! where the specification turns them into spaces. Rejected: quick-xml's
//! unescaping with a fallback for bare `&` — its normalisation turns line
//! breaks and tabs into spaces, so a script string spanning lines would
//! differ from BehaviorTree.CPP's.
//!
//! The tree is kept while a file's trees are read and built (errors quote
//! elements), so it is compact: it owns the file's text, and tag names,
//! attribute names and values are ranges of it — only a value that
//! normalisation changes (a reference such as `&amp;`, a line break) is
//! written out as a string of its own. Elements, attributes and children
//! are three flat lists; an element holds ranges of the other two. (A heap
//! string per name and value, and a list per element, made the tree of a
//! large file several times larger than the file.) Rejected: a DOM crate
//! such as roxmltree — it keeps the text between elements as nodes of
//! their own, accepts an empty document type declaration, and would
//! change the messages and positions of malformed files.

use quick_xml::events::{BytesStart, Event};
use quick_xml::reader::Reader;

use canopy_core::text::{message, quote};
use canopy_data::{LoadError, XmlLimit, XmlProblem};

/// Deepest element nesting read: BehaviorTree.CPP's own limit (256 levels
/// of nodes) plus the document's wrapping elements.
pub(crate) const MAX_ELEMENT_DEPTH: usize = 260;

/// A piece of text: a range of the file's text, or one of the strings
/// normalisation wrote.
#[derive(Clone, Copy)]
enum Piece {
    Source { start: u32, end: u32 },
    Written(u32),
}

/// An attribute: its name and its normalised value.
#[derive(Clone, Copy)]
struct Attr {
    key: Piece,
    value: Piece,
}

/// An element, as ranges of the document's lists.
#[derive(Clone, Copy)]
struct Node {
    tag: Piece,
    /// Byte offset of its `<` in the text.
    offset: u32,
    /// Its attributes, a range of `Dom::attrs`.
    attrs: (u32, u32),
    /// Its children, a range of `Dom::children`.
    children: (u32, u32),
}

/// A parsed file: its text and its elements, the document element first.
pub(crate) struct Dom {
    text: String,
    nodes: Vec<Node>,
    attrs: Vec<Attr>,
    /// Each element's children, in document order, one range per element.
    children: Vec<usize>,
    /// The attribute values normalisation changed.
    written: Vec<Box<str>>,
}

/// One element of a [`Dom`].
#[derive(Clone, Copy)]
pub(crate) struct Element<'d> {
    dom: &'d Dom,
    node: Node,
}

impl<'d> Element<'d> {
    /// Its tag name.
    pub(crate) fn tag(self) -> &'d str {
        self.dom.piece(self.node.tag)
    }

    /// The value of attribute `name`, if present.
    pub(crate) fn attr(self, name: &str) -> Option<&'d str> {
        self.attrs().find(|(k, _)| *k == name).map(|(_, v)| v)
    }

    /// Its attributes, names and values, in document order.
    pub(crate) fn attrs(self) -> impl Iterator<Item = (&'d str, &'d str)> + 'd {
        let dom = self.dom;
        let (start, end) = self.node.attrs;
        dom.attrs[start as usize..end as usize]
            .iter()
            .map(move |a| (dom.piece(a.key), dom.piece(a.value)))
    }

    /// The indices of its child elements, in document order.
    pub(crate) fn children(self) -> &'d [usize] {
        let (start, end) = self.node.children;
        &self.dom.children[start as usize..end as usize]
    }
}

impl Dom {
    /// How many elements the file holds.
    pub(crate) fn len(&self) -> usize {
        self.nodes.len()
    }

    /// The element at `index` (in document order: 0 is the root).
    pub(crate) fn element(&self, index: usize) -> Element<'_> {
        Element {
            dom: self,
            node: self.nodes[index],
        }
    }

    pub(crate) fn root(&self) -> Element<'_> {
        self.element(0)
    }

    /// 1-based line and column of the element at `index`.
    pub(crate) fn line_column(&self, index: usize) -> (usize, usize) {
        line_column(&self.text, self.nodes[index].offset as usize)
    }

    fn piece(&self, piece: Piece) -> &str {
        match piece {
            Piece::Source { start, end } => self.text.get(start as usize..end as usize),
            Piece::Written(i) => self.written.get(i as usize).map(|s| &**s),
        }
        // Pieces are made only of ranges checked against the text.
        .unwrap_or_default()
    }
}

impl Dom {
    /// What is kept once the elements are read: the text, and where each
    /// element starts.
    pub(crate) fn into_outline(self) -> Outline {
        Outline {
            offsets: self.nodes.iter().map(|n| n.offset).collect(),
            text: self.text,
        }
    }
}

/// A file once its elements are read into nodes: its text, for positions,
/// and where each element starts, to read one again for a message. (The
/// elements themselves would be kept only for the few that messages
/// quote.)
pub(crate) struct Outline {
    text: String,
    offsets: Box<[u32]>,
}

impl Outline {
    /// The text, to read its elements again.
    pub(crate) fn into_text(self) -> String {
        self.text
    }

    /// 1-based line and column of the element at `index`.
    pub(crate) fn line_column(&self, index: usize) -> (usize, usize) {
        line_column(&self.text, self.offset(index))
    }

    fn offset(&self, index: usize) -> usize {
        self.offsets.get(index).map_or(0, |&o| o as usize)
    }

    /// The element at `index`, read again from the text.
    pub(crate) fn element(&self, index: usize) -> Reread {
        let mut element = Reread {
            tag: String::new(),
            attrs: Vec::new(),
        };
        let text = self.text.get(self.offset(index)..).unwrap_or_default();
        // The file was read whole once: this start tag reads again (an
        // error would leave the element without attributes, never panic).
        let start = match Reader::from_str(text).read_event() {
            Ok(Event::Start(e) | Event::Empty(e)) => e,
            _ => return element,
        };
        element.tag = start.name().into_inner().to_string();
        for attr in start.attributes().flatten() {
            if let Ok(value) = attribute_value(&attr.value) {
                let key = attr.key.into_inner().to_string();
                element.attrs.push((key, value.into_owned()));
            }
        }
        element
    }
}

/// An element read again from its file's text.
pub(crate) struct Reread {
    tag: String,
    attrs: Vec<(String, String)>,
}

impl Reread {
    /// Its tag name.
    pub(crate) fn tag(&self) -> &str {
        &self.tag
    }

    /// The value of attribute `name`, if present.
    pub(crate) fn attr(&self, name: &str) -> Option<&str> {
        self.attrs().find(|(k, _)| *k == name).map(|(_, v)| v)
    }

    /// Its attributes, names and values, in document order.
    pub(crate) fn attrs(&self) -> impl Iterator<Item = (&str, &str)> {
        self.attrs.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }
}

/// `<Tag ID="…" name="…">`, for errors.
pub(crate) fn describe<'a>(tag: &str, attr: impl Fn(&str) -> Option<&'a str>) -> String {
    let mut text = format!("<{}", canopy_core::text::bare(tag));
    for key in ["ID", "name"] {
        if let Some(value) = attr(key) {
            text.push_str(&format!(" {key}={}", quote(value)));
        }
    }
    text.push('>');
    text
}

/// 1-based line and column (in characters) of byte `offset` in `text`.
pub(crate) fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line = before.bytes().filter(|&b| b == b'\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = before[line_start..].chars().count() + 1;
    (line, column)
}

struct Parser<'t> {
    text: &'t str,
    file: &'t str,
    nodes: Vec<Node>,
    attrs: Vec<Attr>,
    written: Vec<Box<str>>,
    /// Each element's parent (`u32::MAX` for the root), to lay out the
    /// children once every element is read.
    parents: Vec<u32>,
    /// Elements still open, innermost last.
    open: Vec<usize>,
    /// Elements this file may still hold.
    budget: &'t mut usize,
}

/// Parse `text` (already checked to be UTF-8 without NUL bytes). `budget`
/// is how many elements may still be read, across every file of a load.
pub(crate) fn parse(text: String, file: &str, budget: &mut usize) -> Result<Dom, LoadError> {
    if u32::try_from(text.len()).is_err() {
        // Offsets are kept in 32 bits; loads stop far below this anyway.
        return Err(crate::error::whole(file, XmlLimit::FileOver4GiB));
    }
    let mut parser = Parser {
        text: &text,
        file,
        nodes: Vec::new(),
        attrs: Vec::new(),
        written: Vec::new(),
        parents: Vec::new(),
        open: Vec::new(),
        budget,
    };
    parser.read()?;
    let Parser {
        mut nodes,
        mut attrs,
        mut written,
        parents,
        ..
    } = parser;
    let children = lay_out_children(&mut nodes, &parents);
    drop(parents);
    // Kept while the tree is built: without the slack of growing.
    nodes.shrink_to_fit();
    attrs.shrink_to_fit();
    written.shrink_to_fit();
    Ok(Dom {
        text,
        nodes,
        attrs,
        children,
        written,
    })
}

/// Every element's children, in one list of ranges, elements in document
/// order: each element's range is set in `nodes`.
fn lay_out_children(nodes: &mut [Node], parents: &[u32]) -> Vec<usize> {
    let mut ends = vec![0u32; nodes.len()];
    for &parent in parents.iter().filter(|&&p| p != u32::MAX) {
        ends[parent as usize] += 1;
    }
    let mut start = 0;
    for (node, count) in nodes.iter_mut().zip(&mut ends) {
        node.children = (start, start);
        start += *count;
        // From here on, where the next child goes.
        *count = node.children.0;
    }
    let mut children = vec![0; start as usize];
    for (child, &parent) in parents.iter().enumerate() {
        if parent != u32::MAX {
            let next = &mut ends[parent as usize];
            children[*next as usize] = child;
            *next += 1;
            nodes[parent as usize].children.1 = *next;
        }
    }
    children
}

/// Text the XML parser refuses, in its words.
fn malformed(problem: impl Into<String>) -> XmlProblem {
    XmlProblem::Malformed {
        problem: problem.into(),
    }
}

impl Parser<'_> {
    fn read(&mut self) -> Result<(), LoadError> {
        let mut reader = Reader::from_str(self.text);
        reader.config_mut().check_end_names = true;
        loop {
            let start = reader.buffer_position() as usize;
            let event = match reader.read_event() {
                Ok(event) => event,
                Err(e) => {
                    let at = reader.error_position() as usize;
                    let problem = format!("malformed XML: {}", message(&e.to_string()));
                    return Err(self.fail(at, malformed(problem)));
                }
            };
            match event {
                Event::Start(e) => self.element(&e, start, true)?,
                Event::Empty(e) => self.element(&e, start, false)?,
                Event::End(_) => {
                    self.open.pop();
                }
                Event::Text(t) if self.open.is_empty() && !t.trim().is_empty() => {
                    return Err(self.fail(start, malformed("text outside the root element")));
                }
                Event::GeneralRef(_) | Event::CData(_) if self.open.is_empty() => {
                    return Err(self.fail(start, malformed("text outside the root element")));
                }
                Event::Decl(d) => {
                    if let Some(Ok(encoding)) = d.encoding()
                        && !encoding.eq_ignore_ascii_case("utf-8")
                    {
                        let problem = format!(
                            "the file declares the encoding {}; only UTF-8 is supported",
                            quote(&encoding)
                        );
                        return Err(self.fail(start, malformed(problem)));
                    }
                }
                Event::DocType(_) => {
                    return Err(self.fail(
                        start,
                        malformed("document type declarations (<!DOCTYPE …>) are not supported"),
                    ));
                }
                Event::Eof => break,
                // Comments, processing instructions, text inside elements.
                _ => {}
            }
        }
        if let Some(&unclosed) = self.open.last() {
            let node = self.nodes[unclosed];
            let tag = canopy_core::text::bare(self.piece_text(node.tag));
            let problem = format!("<{tag}> is never closed");
            return Err(self.fail(node.offset as usize, malformed(problem)));
        }
        if self.nodes.is_empty() {
            return Err(crate::error::whole(
                self.file,
                malformed("the file holds no XML element"),
            ));
        }
        Ok(())
    }

    /// An error at byte `offset` of the text.
    fn fail(&self, offset: usize, problem: impl Into<crate::error::XmlIssue>) -> LoadError {
        let (line, column) = line_column(self.text, offset);
        crate::error::xml_error(self.file, Some((line, column)), None, problem)
    }

    /// `s`, a part of the text or a string normalisation wrote, as a piece.
    fn piece(&mut self, s: &str) -> Piece {
        let start = s.as_ptr().addr().wrapping_sub(self.text.as_ptr().addr());
        let end = start.wrapping_add(s.len());
        if let (Ok(start), Ok(end)) = (u32::try_from(start), u32::try_from(end))
            && self.text.get(start as usize..end as usize).is_some()
        {
            return Piece::Source { start, end };
        }
        self.written.push(s.into());
        Piece::Written((self.written.len() - 1) as u32)
    }

    fn piece_text(&self, piece: Piece) -> &str {
        match piece {
            Piece::Source { start, end } => self.text.get(start as usize..end as usize),
            Piece::Written(i) => self.written.get(i as usize).map(|s| &**s),
        }
        .unwrap_or_default()
    }

    /// A tag or attribute name must not hold what XML names cannot.
    fn name(&self, name: &str, offset: usize) -> Result<(), LoadError> {
        match name
            .chars()
            .find(|&c| c.is_control() || c.is_whitespace() || "\"'<>=&/".contains(c))
        {
            Some(c) => Err(self.fail(
                offset,
                malformed(format!(
                    "malformed XML: the name {} holds the character {}, which XML names cannot hold",
                    quote(name),
                    quote(&c.to_string())
                )),
            )),
            None => Ok(()),
        }
    }

    fn element(&mut self, e: &BytesStart<'_>, offset: usize, opens: bool) -> Result<(), LoadError> {
        let tag = e.name().into_inner();
        self.name(tag, offset)?;
        let parent = self.open.last().copied();
        if parent.is_none() && !self.nodes.is_empty() {
            return Err(self.fail(
                offset,
                malformed("a second top-level element; an XML file has one"),
            ));
        }
        if self.open.len() >= MAX_ELEMENT_DEPTH {
            return Err(self.fail(
                offset,
                XmlLimit::ElementDepth {
                    limit: MAX_ELEMENT_DEPTH as u64,
                },
            ));
        }
        if *self.budget == 0 {
            return Err(self.fail(offset, XmlLimit::Elements));
        }
        *self.budget -= 1;
        let tag = self.piece(tag);
        let attrs = self.attributes(e, offset)?;
        let index = self.nodes.len();
        self.nodes.push(Node {
            tag,
            offset: offset as u32,
            attrs,
            children: (0, 0),
        });
        self.parents.push(parent.map_or(u32::MAX, |p| p as u32));
        if opens {
            self.open.push(index);
        }
        Ok(())
    }

    /// Read an element's attributes into the list; their range of it.
    fn attributes(&mut self, e: &BytesStart<'_>, offset: usize) -> Result<(u32, u32), LoadError> {
        let first = self.attrs.len() as u32;
        for attr in e.attributes() {
            let attr = attr.map_err(|err| {
                self.fail(
                    offset,
                    malformed(format!(
                        "malformed attribute: {}",
                        message(&err.to_string())
                    )),
                )
            })?;
            let key = attr.key.into_inner();
            self.name(key, offset)?;
            let value = attribute_value(&attr.value).map_err(|err| {
                let problem = format!("malformed value of the attribute {}: {err}", quote(key));
                self.fail(offset, malformed(problem))
            })?;
            let key = self.piece(key);
            let value = self.piece(&value);
            self.attrs.push(Attr { key, value });
        }
        Ok((first, self.attrs.len() as u32))
    }
}

/// An attribute's value as tinyxml2 reads it (see the module docs): the
/// references `&quot;`, `&amp;`, `&apos;`, `&lt;`, `&gt;`, `&#N;` and
/// `&#xH;` replaced, any other `&` left as it is, `\r\n`, `\n\r` and `\r`
/// made `\n`. A reference to NUL or to no character (a surrogate), which
/// tinyxml2 would write into the value as broken text, is refused.
/// Borrowed when nothing changes.
pub(crate) fn attribute_value(raw: &str) -> Result<std::borrow::Cow<'_, str>, String> {
    use std::borrow::Cow;
    if !raw.contains(['&', '\r']) {
        return Ok(Cow::Borrowed(raw));
    }
    const NAMED: [(&str, char); 5] = [
        ("quot;", '"'),
        ("amp;", '&'),
        ("apos;", '\''),
        ("lt;", '<'),
        ("gt;", '>'),
    ];
    let mut out = String::with_capacity(raw.len());
    let mut rest = raw;
    while let Some(at) = rest.find(['&', '\r', '\n']) {
        out.push_str(&rest[..at]);
        let here = &rest[at..];
        let taken = match here.as_bytes()[0] {
            b'&' => {
                let after = &here[1..];
                if let Some(&(name, c)) = NAMED.iter().find(|(name, _)| after.starts_with(name)) {
                    out.push(c);
                    1 + name.len()
                } else if let Some((c, len)) = character_reference(here)? {
                    out.push(c);
                    len
                } else {
                    out.push('&');
                    1
                }
            }
            // A line break, of any kind, is one `\n`: the pairs as
            // tinyxml2 pairs them.
            first => {
                out.push('\n');
                let pair = if first == b'\r' { b'\n' } else { b'\r' };
                if here.as_bytes().get(1) == Some(&pair) {
                    2
                } else {
                    1
                }
            }
        };
        rest = &here[taken..];
    }
    out.push_str(rest);
    Ok(Cow::Owned(out))
}

/// The character of a numeric reference at the start of `text`
/// (`&#65;`, `&#x41;`) and the reference's length, as tinyxml2 reads one:
/// digits up to the first `;`, a lowercase `x` for hexadecimal; `None`
/// for anything else (left as text).
fn character_reference(text: &str) -> Result<Option<(char, usize)>, String> {
    let Some(body) = text.strip_prefix("&#") else {
        return Ok(None);
    };
    let (digits, radix) = match body.strip_prefix('x') {
        Some(hex) => (hex, 16),
        None => (body, 10),
    };
    let Some(end) = digits.find(';') else {
        return Ok(None);
    };
    let digits = &digits[..end];
    if !digits.chars().all(|c| c.is_digit(radix)) {
        return Ok(None);
    }
    // tinyxml2 reads leading zeros and an empty number (as 0).
    let trimmed = digits.trim_start_matches('0');
    let code = if trimmed.len() > 8 {
        None
    } else {
        u32::from_str_radix(if trimmed.is_empty() { "0" } else { trimmed }, radix).ok()
    };
    let Some(code) = code.filter(|&c| c <= 0x10_FFFF) else {
        return Ok(None);
    };
    let len = "&#".len() + usize::from(radix == 16) + digits.len() + ";".len();
    match char::from_u32(code).filter(|&c| c != '\0') {
        Some(c) => Ok(Some((c, len))),
        None => Err(format!(
            "the character reference {} is not a character a value can hold",
            quote(&text[..len])
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_ok(text: &str) -> Dom {
        parse(text.to_string(), "t.xml", &mut 1000).unwrap()
    }

    fn parse_err(text: &str) -> String {
        match parse(text.to_string(), "t.xml", &mut 1000) {
            Ok(_) => panic!("parsed"),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn elements_attributes_and_offsets() {
        let dom = parse_ok(
            "<root a=\"1 &amp; 2\">\n  <B x='&#10;' y=\"plain\"/>\n  <C><D/></C>\n</root>",
        );
        assert_eq!(dom.root().tag(), "root");
        assert_eq!(dom.root().attr("a"), Some("1 & 2"));
        let b = dom.element(dom.root().children()[0]);
        assert_eq!(b.attr("x"), Some("\n"));
        assert_eq!(b.attrs().collect::<Vec<_>>(), [("x", "\n"), ("y", "plain")]);
        assert_eq!(dom.line_column(dom.root().children()[0]), (2, 3));
        let c = dom.element(dom.root().children()[1]);
        assert_eq!(dom.element(c.children()[0]).tag(), "D");
        assert_eq!(dom.len(), 4);
    }

    #[test]
    fn children_are_listed_in_document_order_under_their_own_parent() {
        let dom = parse_ok("<r><a><x/><y/></a><b/><c><z/></c></r>");
        let tags = |index: usize| -> Vec<&str> {
            dom.element(index)
                .children()
                .iter()
                .map(|&c| dom.element(c).tag())
                .collect()
        };
        assert_eq!(tags(0), ["a", "b", "c"]);
        assert_eq!(tags(dom.root().children()[0]), ["x", "y"]);
        assert_eq!(tags(dom.root().children()[1]), Vec::<&str>::new());
        assert_eq!(tags(dom.root().children()[2]), ["z"]);
    }

    #[test]
    fn values_normalisation_changes_are_written_out_and_others_are_ranges_of_the_text() {
        let dom = parse_ok("<r a=\"x&lt;y\" b=\"line\nbreak\" c=\"as is\" d=\"cr\r\nlf\"/>");
        assert_eq!(
            dom.root().attrs().collect::<Vec<_>>(),
            [
                ("a", "x<y"),
                ("b", "line\nbreak"),
                ("c", "as is"),
                ("d", "cr\nlf")
            ]
        );
        assert_eq!(dom.written.len(), 2);
    }

    #[test]
    fn values_read_as_tinyxml2_reads_them() {
        let value = |raw: &str| attribute_value(raw).map(|v| v.into_owned());
        // The five named references, and numeric ones.
        assert_eq!(value("&quot;&amp;&apos;&lt;&gt;").unwrap(), "\"&'<>");
        assert_eq!(value("&#65;&#x42;&#x0063;&#0068;").unwrap(), "ABcD");
        // Any other `&` is itself (BehaviorTree.CPP's own examples write
        // `a==42 && b=='john'`).
        for raw in [
            "a && b",
            "&",
            "a &amp b",
            "&foo;",
            "&#xZZ;",
            "&#X41;",
            "&#65",
            "&#x110000;",
            "&#99999999999;",
            "&AMP;",
        ] {
            assert_eq!(value(raw).unwrap(), raw, "{raw}");
        }
        // Line breaks stay, each kind one `\n`; tabs stay.
        assert_eq!(
            value("a\r\nb\rc\n\rd\n\ne\tf").unwrap(),
            "a\nb\nc\nd\n\ne\tf"
        );
        // Nothing a value cannot hold.
        assert_eq!(
            value("a&#0;b").unwrap_err(),
            "the character reference \"&#0;\" is not a character a value can hold"
        );
        assert!(value("&#;").is_err() && value("&#xD800;").is_err());
        assert!(matches!(
            attribute_value("plain"),
            Ok(std::borrow::Cow::Borrowed(_))
        ));
    }

    #[test]
    fn an_outline_reads_an_element_again_from_the_text() {
        let dom = parse_ok("<r>\n <A ID=\"x\" name=\"a &amp; b && c\" n='1'/>\n</r>");
        let outline = dom.into_outline();
        let a = outline.element(1);
        assert_eq!(a.tag(), "A");
        assert_eq!(
            a.attrs().collect::<Vec<_>>(),
            [("ID", "x"), ("name", "a & b && c"), ("n", "1")]
        );
        assert_eq!(outline.line_column(1), (2, 2));
        assert_eq!(
            describe(a.tag(), |k| a.attr(k)),
            "<A ID=\"x\" name=\"a & b && c\">"
        );
    }

    #[test]
    fn malformed_files() {
        assert_eq!(
            parse_err("<root><A></root>"),
            "t.xml:1:10: malformed XML: ill-formed document: expected `</A>`, but `</root>` was found"
        );
        assert_eq!(parse_err("<root>\n  <A>"), "t.xml:2:3: <A> is never closed");
        assert_eq!(
            parse_err("<a/><b/>"),
            "t.xml:1:5: a second top-level element; an XML file has one"
        );
        assert_eq!(
            parse_err("<!DOCTYPE x [<!ENTITY a \"b\">]><a/>"),
            "t.xml:1:1: document type declarations (<!DOCTYPE …>) are not supported"
        );
        assert_eq!(
            parse_err("<a x=\"&#x0;\"/>"),
            "t.xml:1:1: malformed value of the attribute \"x\": the character reference \
             \"&#x0;\" is not a character a value can hold"
        );
        assert_eq!(parse_err("   "), "t.xml: the file holds no XML element");
        assert_eq!(
            parse_err("<?xml version=\"1.0\" encoding=\"UTF-16\"?><a/>"),
            "t.xml:1:1: the file declares the encoding \"UTF-16\"; only UTF-8 is supported"
        );
        assert_eq!(
            parse_err("hello <a/>"),
            "t.xml:1:1: text outside the root element"
        );
    }

    #[test]
    fn depth_and_budget() {
        let deep = "<a>".repeat(MAX_ELEMENT_DEPTH + 1);
        assert!(parse_err(&deep).ends_with("elements are nested more than 260 deep"));
        assert!(
            matches!(parse("<a><b/><c/></a>".to_string(), "t.xml", &mut 2), Err(e) if e.problem().to_string() == "the files hold too many elements")
        );
    }
}
