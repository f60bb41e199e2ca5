module

public import Bpe.Regex.PatternStrings
import all Bpe.Regex.Syntax
import all Bpe.Regex.Patterns
import all Bpe.Regex.Print
import all Bpe.Regex.PatternStrings
public meta import Lean.Replay
public meta import Lean.CoreM
open Lean

/-! Probe for issue 33, item 4 (see docs/proofs.md): replay the project's constants behind one
headline theorem into a fresh environment with `Lean.Environment.replay`. Offline it does not
compile (measured in docs/proofs.md).
Run: `python -m verified_bpe.toolchain check docs/replay-probe.lean` -/

/-- `acc` followed by the constants `cs`, reversed (own recursion: no core list helpers). -/
public meta def replayPush : List ConstantInfo → List (Name × ConstantInfo) →
    List (Name × ConstantInfo)
  | [], acc => acc
  | c :: cs, acc => replayPush cs ((c.name, c) :: acc)

/-- Every constant of the imported project modules (module name under `Bpe`). -/
public meta def replayCollect : List Name → List ModuleData → List (Name × ConstantInfo) →
    List (Name × ConstantInfo)
  | n :: ns, d :: ds, acc =>
    replayCollect ns ds (if n.getRoot == `Bpe then replayPush d.constants.toList acc else acc)
  | _, _, acc => acc

/-- Variant A: the map built by `Std.HashMap.ofList`. -/
public meta def replayA : CoreM String := do
  let env ← getEnv
  let consts := replayCollect env.header.moduleNames.toList env.header.moduleData.toList []
  let base ← importModules #[{ module := `Init }] {}
  let _ ← Environment.replay (Std.HashMap.ofList consts) base
  return "REPLAY-A ok"

/-- Variant B: the environment's own map of imported constants, filtered. -/
public meta def replayB : CoreM String := do
  let env ← getEnv
  let m := env.constants.map₁.filter fun n _ =>
    match env.getModuleIdxFor? n with
    | some idx => (env.header.moduleNames.getD idx.toNat Name.anonymous).getRoot == `Bpe
    | none => false
  let base ← importModules #[{ module := `Init }] {}
  let _ ← Environment.replay m base
  return "REPLAY-B ok"

#eval replayA
#eval replayB
