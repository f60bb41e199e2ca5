//! fancy-regex run as tiktoken 0.14 runs it (`Regex::new`, then `find_iter` over the text), on
//! patterns and texts read from stdin; the differential test against the regex semantics
//! (`python -m verified_bpe.verify.fancy_diff`, docs/regex.md).
//!
//! Input, one command per line; strings are the hex of their UTF-8 bytes:
//! - `P<hex>`: compile the pattern `p` (as tiktoken does) and `^(?:p)` (for anchored matches);
//!   answers `ok` or `err <message>`.
//! - `T<hex>`: run the last pattern on the text; answers `find_iter`'s matches as
//!   `start:end` code-point offsets, then `|`, then for each offset `i` of the text the end of
//!   the anchored match of the text from `i` (`-`: none). An error of `find_iter` (backtrack
//!   limit, stack) ends the match list with `!<message>`, an error of an anchored match is `!`.
//! - `U`: run the last pattern's `find_iter` on the text of every Unicode scalar value in
//!   order; answers the code points of the matches.

use std::io::{self, BufRead, BufWriter, Write};

use fancy_regex::Regex;

fn unhex(s: &str) -> Result<String, String> {
    let b = s.as_bytes();
    if b.len() % 2 != 0 {
        return Err("odd hex length".into());
    }
    let digit = |c: u8| (c as char).to_digit(16).ok_or("bad hex digit");
    let mut out = Vec::with_capacity(b.len() / 2);
    for pair in b.chunks(2) {
        out.push((digit(pair[0])? * 16 + digit(pair[1])?) as u8);
    }
    String::from_utf8(out).map_err(|e| e.to_string())
}

/// The code-point offset of each byte offset that starts a character (and of the end).
fn char_index(text: &str) -> Vec<usize> {
    let mut idx = vec![usize::MAX; text.len() + 1];
    for (n, (b, _)) in text.char_indices().enumerate() {
        idx[b] = n;
    }
    idx[text.len()] = text.chars().count();
    idx
}

fn find_iter_line(re: &Regex, text: &str, idx: &[usize], out: &mut String) {
    for m in re.find_iter(text) {
        match m {
            Ok(m) => out.push_str(&format!("{}:{} ", idx[m.start()], idx[m.end()])),
            Err(e) => {
                out.push_str(&format!("!{e} "));
                break;
            }
        }
    }
}

fn anchored_line(anchored: &Regex, text: &str, idx: &[usize], out: &mut String) {
    let starts = text.char_indices().map(|(b, _)| b).chain([text.len()]);
    for b in starts {
        match anchored.find(&text[b..]) {
            Ok(Some(m)) => out.push_str(&format!("{} ", idx[b + m.end()])),
            Ok(None) => out.push_str("- "),
            Err(_) => out.push_str("! "),
        }
    }
}

fn all_scalars() -> String {
    (0..=0x10FFFFu32).filter_map(char::from_u32).collect()
}

fn main() {
    let stdin = io::stdin();
    let mut w = BufWriter::new(io::stdout().lock());
    let mut current: Option<(Regex, Option<Regex>)> = None;
    let mut scalars: Option<String> = None;
    for line in stdin.lock().lines() {
        let line = line.expect("stdin");
        let mut out = String::new();
        match line.split_at(line.len().min(1)) {
            ("P", hex) => {
                let compiled = unhex(hex).and_then(|p| {
                    let re = Regex::new(&p).map_err(|e| e.to_string())?;
                    Ok((re, Regex::new(&format!("^(?:{p})")).ok()))
                });
                match compiled {
                    Ok(c) => {
                        current = Some(c);
                        out.push_str("ok");
                    }
                    Err(e) => {
                        current = None;
                        out.push_str(&format!("err {}", e.replace('\n', " ")));
                    }
                }
            }
            ("T", hex) => match (&current, unhex(hex)) {
                (Some((re, anchored)), Ok(text)) => {
                    let idx = char_index(&text);
                    find_iter_line(re, &text, &idx, &mut out);
                    out.push('|');
                    if let Some(a) = anchored {
                        anchored_line(a, &text, &idx, &mut out);
                    }
                }
                (None, _) => out.push_str("!no pattern"),
                (_, Err(e)) => out.push_str(&format!("!{e}")),
            },
            ("U", _) => match &current {
                Some((re, _)) => {
                    let text = scalars.get_or_insert_with(all_scalars);
                    for m in re.find_iter(text).flatten() {
                        for c in m.as_str().chars() {
                            out.push_str(&format!("{} ", c as u32));
                        }
                    }
                }
                None => out.push_str("!no pattern"),
            },
            _ => out.push_str("!bad command"),
        }
        writeln!(w, "{}", out.trim_end().replace('\n', " ")).expect("stdout");
    }
}
