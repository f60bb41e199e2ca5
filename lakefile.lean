import Lake
open Lake DSL

package «verified-bpe» where
  leanOptions := #[⟨`experimental.module, true⟩]

@[default_target]
lean_lib Bpe where
  srcDir := "lean"
