module

public import Bpe.Regex.Syntax
public import Bpe.Regex.Match
public import Bpe.Regex.Print
public import Bpe.Regex.Patterns
public import Bpe.Regex.PatternStrings
public import Bpe.Regex.Ascii
public import Bpe.Regex.Fuel
public import Bpe.Regex.Lemmas
public import Bpe.Regex.SeedClasses
public import Bpe.Regex.SeedBranches
public import Bpe.Regex.SeedAscii
public import Bpe.Regex.Unicode
public import Bpe.Regex.Cl100kClasses
public import Bpe.Regex.Cl100kBranches
public import Bpe.Regex.Cl100k
public import Bpe.Regex.O200kClasses
public import Bpe.Regex.O200kBranches
public import Bpe.Regex.O200k
public import Bpe.Regex.Tiktoken
public import Bpe.Regex.R50kPattern
public import Bpe.Regex.R50kBranches
public import Bpe.Regex.MachineLoop
public import Bpe.Regex.R50k
public import Bpe.Regex.TiktokenR50k
public import Bpe.Regex.TiktokenWholePieces
public import Bpe.Regex.Llama3Branches
public import Bpe.Regex.Llama3
public import Bpe.Regex.Llama3Meta

/-!
# Regex semantics of the pre-tokenization patterns (issue 22, step 1)

* `Bpe.Regex.Syntax`: the fragment (literals, classes over abstract Unicode properties,
  concatenation, ordered alternation, greedy and possessive repetition, groups, `(?i:…)`,
  `(?!…)`, `$`) and the `Classes` record through which the semantics reads the properties.
* `Bpe.Regex.Match`: the semantics of tiktoken's engine (fancy-regex): a continuation-passing
  backtracking matcher, leftmost-first with priorities (`matchRe`, `matchAt`), `$` = end of the
  haystack, and `findIter` = `find_iter` (leftmost, non-overlapping, gaps skipped, fancy-regex's
  rule for empty matches). Structural recursion throughout, so the kernel evaluates it.
* `Bpe.Regex.Print`: a term back in regex syntax.
* `Bpe.Regex.Patterns`: the seed's, GPT-2, cl100k_base, o200k_base and Llama-3 patterns as
  terms; they print to the exact strings of `verified_bpe.patterns`.
* `Bpe.Regex.PatternStrings`: kernel evaluation that cl100k_base's and o200k_base's terms
  print to tiktoken 0.14's pattern strings, byte for byte (`toRegex_cl100kPattern`,
  `toRegex_o200kPattern`).
* `Bpe.Regex.Ascii`: the ASCII instance of the classes.
* `Bpe.Regex.Fuel`: the counters that make the loops structural suffice: more changes
  nothing (`star_succ`, `findLoop_succ`, `findLoop_eq_findIter`).
* `Bpe.Regex.Lemmas`: generic equations of the matcher (any `Classes`): repetitions of a
  one-code-point body through `runLen` and `greedy`, `(?!…)` after a greedy run.
* `Bpe.Regex.SeedClasses`: the seed's byte predicates are the ASCII classes of its pattern.
* `Bpe.Regex.SeedBranches`: each alternative of `seedPattern` is the machine's branch.
* `Bpe.Regex.SeedAscii`: `preTokenizeAscii_eq_findIter` (issue 22, step 2), and the 1-unit
  fallback never fires on ASCII input (`exists_branch_ne_zero`).
* `Bpe.Regex.Unicode`: the Unicode instance of the classes (`unicodeClasses`).
* `Bpe.Regex.Cl100kClasses`: `ReadsTables C`, the hypotheses on the classes under which the
  cl100k_base proof holds; the pattern's classes as the Unicode machine's predicates.
* `Bpe.Regex.Cl100kBranches`: each alternative of `cl100kPattern` is the machine's branch.
* `Bpe.Regex.Cl100k`: `preTokenizeCl100k_eq_findIter` (issue 22, step 3) over code points, its
  bridge from bytes, and the 1-unit fallback never fires (`Bpe.Cl100k.exists_branch_ne_zero`).
* `Bpe.Regex.O200kClasses`, `Bpe.Regex.O200kBranches`, `Bpe.Regex.O200k`: the same for
  o200k_base (issue 22, step 4): `ReadsTablesO200k C`, one lemma per branch (the backtracking
  of `U*W+` is `greedy_casedCore`), and `preTokenizeO200k_eq_findIter` with its bridges.
* `Bpe.Regex.Tiktoken`: `tiktokenEncodeOrdinary` (tiktoken's `encode_ordinary`) and
  `encodeCl100k_eq_tiktokenEncodeOrdinary` (issue 22, step 5): under `RanksOk`, the Lean
  encoder returns tiktoken's ids for every string.
* `Bpe.Regex.R50kPattern`, `Bpe.Regex.R50kBranches`, `Bpe.Regex.MachineLoop`, `Bpe.Regex.R50k`,
  `Bpe.Regex.TiktokenR50k`: the same for GPT-2's pattern as tiktoken 0.14 ships it (r50k_base,
  p50k_base, gpt2): the term `r50kPattern`, one lemma per branch under cl100k_base's
  `ReadsTables`, the generic last step (a machine whose step is `matchAt` is `findIter`, with
  both bridges), `preTokenizeR50k_eq_findIter`, and `encodeR50k_eq_tiktokenEncodeOrdinary`.
* `Bpe.Regex.TiktokenWholePieces`: tables with whole-piece tokens (Llama 3): the end-to-end
  theorem is false without condition C's two-part clause (a kernel-checked counterexample),
  and `encode_ordinary` round-trips under the weaker `RanksDecodeOk`.
* `Bpe.Regex.Llama3Branches`, `Bpe.Regex.Llama3`: Llama 3's pattern (llama.cpp's
  `llama-bpe`): one lemma per branch, `preTokenizeLlama3_eq_findIter` with its bridges, the
  pattern string by printing, and `encodeRanksWith_llama3_eq_tiktokenEncodeOrdinary` (rank BPE
  over the machine is `encode_ordinary`, every table) with its roundtrip under `RanksDecodeOk`.
* `Bpe.Regex.Llama3Meta`: Meta's own Llama 3 pattern (`tokenizer.model`, contractions
  `(?i:…)`): the same proof with o200k_base's contraction branch, the pattern string by
  printing, `encodeRanksWith_llama3Meta_eq_tiktokenEncodeOrdinary` and its roundtrip.

What this layer proves: the counters of the two loops suffice (`Bpe.Regex.Fuel`), so
`findIter` is the unbounded `find_iter`; the seed's ASCII pre-tokenizer is `findIter` of the
seed's pattern on every ASCII input (`Bpe.Regex.SeedAscii`); and the cl100k_base machine is
`findIter` of tiktoken 0.14's pattern under the Unicode classes on every list of code points
(`Bpe.Regex.Cl100k`). That the semantics is the
engine's is tested, not proved: the Python mirror (`verified_bpe.spec.regex`) is
differential-tested against the `regex` module on 10^5 random patterns of the fragment
(`tests/test_spec_regex.py`, which lists the intended differences), and
`BpeTest.RegexExamples` evaluates cases in the kernel. The same theorem holds for o200k_base
(`Bpe.Regex.O200k`, issue 22, step 4).
-/
