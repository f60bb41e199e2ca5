import Lake
open Lake DSL

package «verified-bpe» where
  leanOptions := #[⟨`experimental.module, true⟩]

/-- The specification and its proofs (`lake build`). -/
@[default_target]
lean_lib Bpe where
  srcDir := "lean"

/-- Kernel-evaluated sanity examples (`lake build BpeTest`). -/
lean_lib BpeTest where
  srcDir := "lean"
  globs := #[.submodules `BpeTest]

/-- Route 2 of the cross-check: the proven executable encoder (`lake exe bpe-encode INPUT OUTPUT`). -/
lean_exe «bpe-encode» where
  srcDir := "lean"
  root := `BpeExe.Main
