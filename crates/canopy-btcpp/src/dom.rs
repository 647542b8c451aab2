//! XML text → a small element tree with byte offsets, nothing more.
//!
//! quick-xml does the lexing; this module bounds what a stranger's file may
//! make it build (elements, nesting) and refuses what BehaviorTree.CPP
//! files never need and attackers like: document type declarations (and
//! with them entity expansion), encodings other than UTF-8. Text between
//! elements is ignored, as BehaviorTree.CPP ignores it.

use quick_xml::XmlVersion;
use quick_xml::events::{BytesStart, Event};
use quick_xml::reader::Reader;

use crate::error::XmlError;
use crate::text::{quote, sanitize};

/// Deepest element nesting read: BehaviorTree.CPP's own limit (256 levels
/// of nodes) plus the document's wrapping elements.
pub(crate) const MAX_ELEMENT_DEPTH: usize = 260;

/// One element: its tag, attributes in document order, child elements.
pub(crate) struct Element {
    pub(crate) tag: String,
    pub(crate) attrs: Vec<(String, String)>,
    pub(crate) children: Vec<usize>,
    /// Byte offset of its `<` in the source text.
    pub(crate) offset: usize,
}

impl Element {
    /// The value of attribute `name`, if present.
    pub(crate) fn attr(&self, name: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// A parsed file: its elements, the document element first.
pub(crate) struct Dom {
    pub(crate) elements: Vec<Element>,
}

impl Dom {
    pub(crate) fn root(&self) -> &Element {
        &self.elements[0]
    }
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
    elements: Vec<Element>,
    /// Elements still open, innermost last.
    open: Vec<usize>,
    /// Elements this file may still hold.
    budget: &'t mut usize,
}

/// Parse `text` (already checked to be UTF-8 without NUL bytes). `budget`
/// is how many elements may still be read, across every file of a load.
pub(crate) fn parse(text: &str, file: &str, budget: &mut usize) -> Result<Dom, XmlError> {
    let mut reader = Reader::from_str(text);
    reader.config_mut().check_end_names = true;
    let mut parser = Parser {
        text,
        file,
        elements: Vec::new(),
        open: Vec::new(),
        budget,
    };
    loop {
        let start = reader.buffer_position() as usize;
        let event = match reader.read_event() {
            Ok(event) => event,
            Err(e) => {
                let at = reader.error_position() as usize;
                return Err(parser.fail(at, format!("malformed XML: {}", sanitize(&e.to_string()))));
            }
        };
        match event {
            Event::Start(e) => parser.element(&e, start, true)?,
            Event::Empty(e) => parser.element(&e, start, false)?,
            Event::End(_) => {
                parser.open.pop();
            }
            Event::Text(t) => {
                let outside = parser.open.is_empty();
                if outside && !t.trim().is_empty() {
                    return Err(parser.fail(start, "text outside the root element".to_string()));
                }
            }
            Event::GeneralRef(_) | Event::CData(_) if parser.open.is_empty() => {
                return Err(parser.fail(start, "text outside the root element".to_string()));
            }
            Event::Decl(d) => {
                if let Some(Ok(encoding)) = d.encoding()
                    && !encoding.eq_ignore_ascii_case("utf-8")
                {
                    return Err(parser.fail(
                        start,
                        format!(
                            "the file declares the encoding {}; only UTF-8 is supported",
                            quote(&encoding)
                        ),
                    ));
                }
            }
            Event::DocType(_) => {
                return Err(parser.fail(
                    start,
                    "document type declarations (<!DOCTYPE …>) are not supported".to_string(),
                ));
            }
            Event::Eof => break,
            // Comments, processing instructions, text inside elements.
            _ => {}
        }
    }
    if let Some(&unclosed) = parser.open.last() {
        let e = &parser.elements[unclosed];
        return Err(parser.fail(
            e.offset,
            format!("<{}> is never closed", crate::text::bare(&e.tag)),
        ));
    }
    if parser.elements.is_empty() {
        return Err(XmlError::whole(file, "the file holds no XML element"));
    }
    // Kept while the tree is built (errors quote elements): without the
    // slack of growing.
    let mut elements = parser.elements;
    elements.shrink_to_fit();
    Ok(Dom { elements })
}

impl Parser<'_> {
    fn fail(&self, offset: usize, problem: String) -> XmlError {
        let (line, column) = line_column(self.text, offset);
        XmlError {
            file: self.file.to_string(),
            line,
            column,
            element: None,
            problem,
            unknown_type: None,
        }
    }

    /// A tag or attribute name must not hold what XML names cannot.
    fn name(&self, name: &str, offset: usize) -> Result<(), XmlError> {
        match name
            .chars()
            .find(|&c| c.is_control() || c.is_whitespace() || "\"'<>=&/".contains(c))
        {
            Some(c) => Err(self.fail(
                offset,
                format!(
                    "malformed XML: the name {} holds the character {}, which XML names cannot hold",
                    quote(name),
                    quote(&c.to_string())
                ),
            )),
            None => Ok(()),
        }
    }

    fn element(&mut self, e: &BytesStart<'_>, offset: usize, opens: bool) -> Result<(), XmlError> {
        let tag = e.name().into_inner().to_string();
        self.name(&tag, offset)?;
        let parent = self.open.last().copied();
        if parent.is_none() && !self.elements.is_empty() {
            return Err(self.fail(
                offset,
                "a second top-level element; an XML file has one".to_string(),
            ));
        }
        if self.open.len() >= MAX_ELEMENT_DEPTH {
            return Err(self.fail(
                offset,
                format!("elements are nested more than {MAX_ELEMENT_DEPTH} deep"),
            ));
        }
        if *self.budget == 0 {
            return Err(self.fail(offset, "the files hold too many elements".to_string()));
        }
        *self.budget -= 1;
        let mut attrs = Vec::new();
        for attr in e.attributes() {
            let attr = attr.map_err(|err| {
                self.fail(
                    offset,
                    format!("malformed attribute: {}", sanitize(&err.to_string())),
                )
            })?;
            let key = attr.key.into_inner();
            self.name(key, offset)?;
            let value = attr
                .normalized_value(XmlVersion::Implicit1_0)
                .map_err(|err| {
                    let problem = format!(
                        "malformed value of the attribute {}: {}",
                        quote(key),
                        sanitize(&err.to_string())
                    );
                    self.fail(offset, problem)
                })?;
            attrs.push((key.to_string(), value.into_owned()));
        }
        let index = self.elements.len();
        self.elements.push(Element {
            tag,
            attrs,
            children: Vec::new(),
            offset,
        });
        if let Some(parent) = parent {
            self.elements[parent].children.push(index);
        }
        if opens {
            self.open.push(index);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_ok(text: &str) -> Dom {
        parse(text, "t.xml", &mut 1000).unwrap()
    }

    fn parse_err(text: &str) -> String {
        match parse(text, "t.xml", &mut 1000) {
            Ok(_) => panic!("parsed"),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn elements_attributes_and_offsets() {
        let dom = parse_ok("<root a=\"1 &amp; 2\">\n  <B x='&#10;'/>\n  <C><D/></C>\n</root>");
        assert_eq!(dom.root().tag, "root");
        assert_eq!(dom.root().attr("a"), Some("1 & 2"));
        let b = &dom.elements[dom.root().children[0]];
        assert_eq!(b.attr("x"), Some("\n"));
        assert_eq!(
            line_column("<root a=\"1 &amp; 2\">\n  <B", b.offset),
            (2, 3)
        );
        let c = &dom.elements[dom.root().children[1]];
        assert_eq!(dom.elements[c.children[0]].tag, "D");
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
            parse_err("<a x=\"&lol;\"/>"),
            "t.xml:1:1: malformed value of the attribute \"x\": at 1..4: unrecognized entity `lol`"
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
            matches!(parse("<a><b/><c/></a>", "t.xml", &mut 2), Err(e) if e.problem == "the files hold too many elements")
        );
    }
}
