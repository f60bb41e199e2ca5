//! The Unicode pre-tokenizers (Lean: `Bpe.Unicode`), one file per Lean module.
pub mod ascii;
pub mod cl100k;
pub mod class_table;
pub mod llama3;
pub mod o200k;
pub mod pretokenize;
pub mod r50k;
pub mod range_tree;
pub mod tables;
