//! BehaviorTree.CPP's conversions between text and values, to the letter.
//!
//! BehaviorTree.CPP decides some types at run time: a port reading a
//! string entry converts the text (`convertFromString<T>`), a script
//! assigning a string to a number converts it (`StringToDouble`), and
//! joining a number to a string prints it (`std::to_string`). A tree
//! written for it relies on exactly those rules — `"12abc"` reads as the
//! integer 12, `3.5` prints as `3.500000` — so canopy applies the same
//! ones, at the same moments, for the keys whose type the file leaves to
//! run time. Everything here works on `&str` and returns values: no
//! allocation except [`number_text`]'s small buffer, which callers copy
//! into a [`Text`](crate::Text).
//!
//! The number grammar is C++'s `std::from_chars` (what BehaviorTree.CPP
//! 4.10 calls): an optional `-` (never `+`, never leading space), digits
//! with an optional fraction and exponent, or `inf`/`infinity`/`nan` in
//! any case; the longest such prefix is the number and the rest is
//! ignored, except where BehaviorTree.CPP asks for the whole text
//! ([`whole_f64`], [`whole_i32`], as its `Switch` does). Rejected: Rust's
//! `str::parse`, which accepts `+1` and refuses `12abc`, so the same file
//! would read differently on the two engines.

use std::fmt;

/// Why a text is not a value of the type asked for, in BehaviorTree.CPP's
/// words where it has them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConvertError {
    /// The text does not start with a number.
    NotANumber,
    /// A number outside the type's range.
    OutOfRange,
    /// Not one of the words a bool is written as.
    NotABool,
    /// A list (`x;y`) with the wrong number of parts.
    WrongLength {
        /// Parts the type has.
        want: u8,
        /// Parts the text has.
        got: u8,
    },
    /// The type has no conversion from text (BehaviorTree.CPP's
    /// `convertFromString` has no specialisation for it).
    NoConversion,
}

impl fmt::Display for ConvertError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConvertError::NotANumber => f.write_str("it is not a number"),
            ConvertError::OutOfRange => f.write_str("the number is out of the type's range"),
            ConvertError::NotABool => {
                f.write_str("a bool is written 0, 1, true, false, True, False, TRUE or FALSE")
            }
            ConvertError::WrongLength { want, got } => {
                write!(
                    f,
                    "it has {got} parts separated by `;`, the type has {want}"
                )
            }
            ConvertError::NoConversion => f.write_str("the type has no conversion from text"),
        }
    }
}

impl std::error::Error for ConvertError {}

/// Bytes of the longest prefix of `s` that `std::from_chars` reads as a
/// decimal number (sign, digits, fraction, exponent), or `None`.
fn decimal_prefix(s: &[u8]) -> Option<usize> {
    let mut i = usize::from(s.first() == Some(&b'-'));
    let digits = |mut i: usize| {
        while s.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        i
    };
    let int_end = digits(i);
    let mut end = int_end;
    let mut seen = int_end > i;
    if s.get(end) == Some(&b'.') {
        let frac_end = digits(end + 1);
        seen |= frac_end > end + 1;
        if seen {
            end = frac_end;
        }
    }
    if !seen {
        return None;
    }
    i = end;
    if matches!(s.get(i), Some(b'e' | b'E')) {
        let sign = usize::from(matches!(s.get(i + 1), Some(b'+' | b'-')));
        let exp_end = digits(i + 1 + sign);
        if exp_end > i + 1 + sign {
            end = exp_end;
        }
    }
    Some(end)
}

/// `inf`, `infinity` or `nan` (any case, optionally signed) at the start
/// of `s`: the value and its length.
fn special_prefix(s: &str) -> Option<(f64, usize)> {
    let (sign, rest) = match s.strip_prefix('-') {
        Some(rest) => (-1.0, rest),
        None => (1.0, s),
    };
    let lower = |n: usize| rest.get(..n).map(str::to_ascii_lowercase);
    let skip = s.len() - rest.len();
    if lower(8).as_deref() == Some("infinity") {
        Some((sign * f64::INFINITY, skip + 8))
    } else if lower(3).as_deref() == Some("inf") {
        Some((sign * f64::INFINITY, skip + 3))
    } else if lower(3).as_deref() == Some("nan") {
        Some((f64::NAN, skip + 3))
    } else {
        None
    }
}

/// The number `std::from_chars` reads at the start of `s` and the bytes
/// it took: the longest valid prefix. A finite text too large for `f64`
/// is out of range, as `from_chars` reports it.
pub fn prefix_f64(s: &str) -> Result<(f64, usize), ConvertError> {
    if let Some(special) = special_prefix(s) {
        return Ok(special);
    }
    let end = decimal_prefix(s.as_bytes()).ok_or(ConvertError::NotANumber)?;
    let value: f64 = s[..end].parse().map_err(|_| ConvertError::NotANumber)?;
    if value.is_infinite() {
        return Err(ConvertError::OutOfRange);
    }
    Ok((value, end))
}

/// A whole number at the start of `s` (optional `-`, digits), as
/// `std::from_chars` reads an `int64_t`, and the bytes it took.
pub fn prefix_i64(s: &str) -> Result<(i64, usize), ConvertError> {
    let bytes = s.as_bytes();
    let start = usize::from(bytes.first() == Some(&b'-'));
    let end = start
        + bytes[start..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
    if end == start {
        return Err(ConvertError::NotANumber);
    }
    s[..end]
        .parse()
        .map(|v| (v, end))
        .map_err(|_| ConvertError::OutOfRange)
}

/// An unsigned whole number at the start of `s`, as `std::from_chars`
/// reads a `uint64_t` (no sign at all).
pub fn prefix_u64(s: &str) -> Result<(u64, usize), ConvertError> {
    let end = s.bytes().take_while(u8::is_ascii_digit).count();
    if end == 0 {
        return Err(ConvertError::NotANumber);
    }
    s[..end]
        .parse()
        .map(|v| (v, end))
        .map_err(|_| ConvertError::OutOfRange)
}

/// `s` read whole as a number (nothing may follow), as BehaviorTree.CPP's
/// `Switch` compares cases.
pub fn whole_f64(s: &str) -> Option<f64> {
    prefix_f64(s)
        .ok()
        .filter(|(_, n)| *n == s.len())
        .map(|(v, _)| v)
}

/// `s` read whole as a whole number that fits an `int`, as
/// BehaviorTree.CPP's `Switch` compares cases.
pub fn whole_i32(s: &str) -> Option<i32> {
    let (v, n) = prefix_i64(s).ok()?;
    (n == s.len()).then(|| i32::try_from(v).ok()).flatten()
}

/// BehaviorTree.CPP's `convertFromString<double>`: the number at the
/// start of `s`.
pub fn text_to_f64(s: &str) -> Result<f64, ConvertError> {
    prefix_f64(s).map(|(v, _)| v)
}

/// BehaviorTree.CPP's `convertFromString` for a signed integer type
/// whose range is `min..=max`: the whole number at the start of `s`,
/// checked against the range.
pub fn text_to_int(s: &str, min: i64, max: i64) -> Result<i64, ConvertError> {
    let (v, _) = prefix_i64(s)?;
    if v < min || v > max {
        return Err(ConvertError::OutOfRange);
    }
    Ok(v)
}

/// BehaviorTree.CPP's `convertFromString` for an unsigned type with
/// maximum `max`.
pub fn text_to_uint(s: &str, max: u64) -> Result<u64, ConvertError> {
    let (v, _) = prefix_u64(s)?;
    if v > max {
        return Err(ConvertError::OutOfRange);
    }
    Ok(v)
}

/// BehaviorTree.CPP's `convertFromString<bool>`: `0`, `1`, and `true` or
/// `false` in lower case, capitalised or upper case.
pub fn text_to_bool(s: &str) -> Result<bool, ConvertError> {
    match s {
        "1" | "true" | "True" | "TRUE" => Ok(true),
        "0" | "false" | "False" | "FALSE" => Ok(false),
        _ => Err(ConvertError::NotABool),
    }
}

/// The `;`-separated parts of `s`, as BehaviorTree.CPP's `splitString`
/// cuts a vector or a point (`3;-4`): exactly `N` numbers.
pub fn text_to_point<const N: usize>(s: &str) -> Result<[f64; N], ConvertError> {
    let mut out = [0.0; N];
    let mut got = 0usize;
    for part in s.split(';') {
        if let Some(slot) = out.get_mut(got) {
            *slot = text_to_f64(part)?;
        }
        got += 1;
    }
    if got != N {
        return Err(ConvertError::WrongLength {
            want: N as u8,
            got: got.min(255) as u8,
        });
    }
    Ok(out)
}

/// BehaviorTree.CPP's script conversion of a string to a number
/// (`StringToDouble`): `true` is 1, `false` is 0, an enum word its value
/// (`constant`), and anything else the number at its start.
pub fn script_text_to_f64(
    s: &str,
    constant: impl FnOnce(&str) -> Option<f64>,
) -> Result<f64, ConvertError> {
    match s {
        "true" => Ok(1.0),
        "false" => Ok(0.0),
        _ => match constant(s) {
            Some(v) => Ok(v),
            None => text_to_f64(s),
        },
    }
}

/// A number as C++'s `std::to_string` prints it: whole numbers (what
/// BehaviorTree.CPP holds as `int64_t`) in digits, others (its `double`s)
/// with six decimals, as `printf("%f")` does.
pub fn number_text(value: f64, whole: bool) -> String {
    if whole && value.fract() == 0.0 && value.abs() < 9.3e18 {
        return format!("{}", value as i64);
    }
    if value.is_nan() {
        return if value.is_sign_negative() {
            "-nan"
        } else {
            "nan"
        }
        .to_string();
    }
    if value.is_infinite() {
        return if value < 0.0 { "-inf" } else { "inf" }.to_string();
    }
    format!("{value:.6}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_read_as_from_chars_reads_them() {
        assert_eq!(prefix_f64("12abc"), Ok((12.0, 2)));
        assert_eq!(prefix_f64("-1.5e3;"), Ok((-1500.0, 6)));
        assert_eq!(prefix_f64(".5"), Ok((0.5, 2)));
        assert_eq!(prefix_f64("5."), Ok((5.0, 2)));
        assert_eq!(prefix_f64("1e"), Ok((1.0, 1)));
        assert_eq!(prefix_f64("1e+"), Ok((1.0, 1)));
        assert_eq!(prefix_f64("+1"), Err(ConvertError::NotANumber));
        assert_eq!(prefix_f64(" 1"), Err(ConvertError::NotANumber));
        assert_eq!(prefix_f64("."), Err(ConvertError::NotANumber));
        assert_eq!(prefix_f64("0x10"), Ok((0.0, 1)));
        assert_eq!(prefix_f64("1e999"), Err(ConvertError::OutOfRange));
        assert_eq!(
            prefix_f64("INF").map(|(v, n)| (v.is_infinite(), n)),
            Ok((true, 3))
        );
        assert_eq!(prefix_f64("-Infinity!"), Ok((f64::NEG_INFINITY, 9)));
        assert!(prefix_f64("nan").is_ok_and(|(v, _)| v.is_nan()));
        assert_eq!(prefix_i64("-42x"), Ok((-42, 3)));
        assert_eq!(prefix_i64("4.9"), Ok((4, 1)));
        assert_eq!(
            prefix_i64("99999999999999999999"),
            Err(ConvertError::OutOfRange)
        );
        assert_eq!(prefix_u64("-1"), Err(ConvertError::NotANumber));
    }

    #[test]
    fn whole_readings_refuse_trailing_text() {
        assert_eq!(whole_f64("1.5"), Some(1.5));
        assert_eq!(whole_f64("1.5x"), None);
        assert_eq!(whole_i32("1"), Some(1));
        assert_eq!(whole_i32("1.0"), None);
        assert_eq!(whole_i32("3000000000"), None);
    }

    #[test]
    fn conversions_check_ranges_and_words() {
        assert_eq!(text_to_int("300", -128, 127), Err(ConvertError::OutOfRange));
        assert_eq!(text_to_int("12abc", -128, 127), Ok(12));
        assert_eq!(text_to_uint("7", 255), Ok(7));
        assert_eq!(text_to_bool("True"), Ok(true));
        assert_eq!(text_to_bool("yes"), Err(ConvertError::NotABool));
        assert_eq!(text_to_point::<2>("-1;3"), Ok([-1.0, 3.0]));
        assert_eq!(
            text_to_point::<2>("1;2;3"),
            Err(ConvertError::WrongLength { want: 2, got: 3 })
        );
        assert_eq!(script_text_to_f64("true", |_| None), Ok(1.0));
        assert_eq!(
            script_text_to_f64("RED", |w| (w == "RED").then_some(0.0)),
            Ok(0.0)
        );
        assert_eq!(script_text_to_f64("2.5m", |_| None), Ok(2.5));
    }

    #[test]
    fn numbers_print_as_to_string_prints_them() {
        assert_eq!(number_text(42.0, true), "42");
        assert_eq!(number_text(-3.0, true), "-3");
        assert_eq!(number_text(3.5, false), "3.500000");
        assert_eq!(number_text(1.0, false), "1.000000");
        assert_eq!(number_text(1e20, false), "100000000000000000000.000000");
        assert_eq!(number_text(f64::INFINITY, false), "inf");
    }
}
