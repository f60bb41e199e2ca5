module

public import Bpe.Exec.RanksLookup
public import Bpe.Exec.Encode
public import Bpe.Ranks.Fast

/-!
# The executable merge recovery is the spec's `…By` recovery through `findTok`

`Bpe.Exec.recoverOne` (in `Bpe.Exec.Ranks`) is `Bpe.recoverMergeBy` (`Bpe.Ranks.Fast`) with
`findTok s` as the lookup, with no hypothesis on `s`: the same loop (`decomposeLoopX` =
`Bpe.decomposeLoopBy`), the same choice of pair (`bestPairX` = `Bpe.bestPairIndexBy`), the same
merge step (`mergeAtX` = `Bpe.mergeAt`); the executable functions only swap core's `++`,
`List.length` and `List.map` (which do not run offline) for own recursions. So whenever
`findTok s` answers as `rankOf ranks` does, `Bpe.recoverMergeBy_eq` makes the executable
recovery record exactly the spec's merge for every entry (`recoverOne_eq`). `findTok_eq` gives
that answer on the entries of the key array itself; `Bpe.Exec.RanksTables` shows that the key
array (a sort of the parsed entries) answers as the parsed table in file order
(`findTok_keysOf`).
-/

@[expose] public section

namespace Bpe.Exec

@[simp] theorem singles_eq : ∀ a : List UInt8, singles a = a.map fun b => [b]
  | [] => rfl
  | x :: xs => by simp [singles, singles_eq xs]

theorem allowedX_eq_allowedRankBy (s : Array TokEntry) (m : Nat) (t : List UInt8) :
    allowedX s m t = allowedRankBy (findTok s) m t := rfl

theorem bestPairX_eq_bestPairIndexBy (s : Array TokEntry) (m : Nat) :
    ∀ (i : Nat) (parts : List (List UInt8)),
      bestPairX s m i parts = bestPairIndexBy (findTok s) m i parts
  | i, a :: b :: rest => by
    rw [bestPairX, bestPairIndexBy, allowedX_eq_allowedRankBy, appendBytes_eq,
      bestPairX_eq_bestPairIndexBy s m (i + 1) (b :: rest)]
    cases allowedRankBy (findTok s) m (a ++ b) with
    | none => rfl
    | some r =>
      cases bestPairIndexBy (findTok s) m (i + 1) (b :: rest) with
      | none => rfl
      | some p =>
        obtain ⟨j, q⟩ := p
        rfl
  | _, [] => rfl
  | _, [_] => rfl

theorem mergeAtX_eq_mergeAt : ∀ (i : Nat) (parts : List (List UInt8)),
    mergeAtX i parts = mergeAt i parts
  | 0, a :: b :: rest => by simp [mergeAtX, mergeAt]
  | i + 1, a :: rest => by simp [mergeAtX, mergeAt, mergeAtX_eq_mergeAt i rest]
  | 0, [] => rfl
  | 0, [_] => rfl
  | _ + 1, [] => rfl

theorem decomposeLoopX_eq_decomposeLoopBy (s : Array TokEntry) (m : Nat) :
    ∀ (fuel : Nat) (parts : List (List UInt8)),
      decomposeLoopX s m fuel parts = decomposeLoopBy (findTok s) m fuel parts
  | 0, _ => rfl
  | fuel + 1, parts => by
    rw [decomposeLoopX, decomposeLoopBy, bestPairX_eq_bestPairIndexBy]
    cases bestPairIndexBy (findTok s) m 0 parts with
    | none => rfl
    | some p =>
      obtain ⟨i, r⟩ := p
      show decomposeLoopX s m fuel (mergeAtX i parts) =
        decomposeLoopBy (findTok s) m fuel (mergeAt i parts)
      rw [mergeAtX_eq_mergeAt, decomposeLoopX_eq_decomposeLoopBy s m fuel]

/-- The executable decomposition is `Bpe.decomposeTokenBy` through `findTok s`. -/
theorem decomposeX_eq_decomposeTokenBy (s : Array TokEntry) (tok : List UInt8) (m : Nat) :
    decomposeX s tok m = decomposeTokenBy (findTok s) tok m := by
  simp only [decomposeX, decomposeTokenBy, lenBytes_eq, singles_eq,
    decomposeLoopX_eq_decomposeLoopBy]

/-- The executable recovery of one merge is `Bpe.recoverMergeBy` through `findTok s`. -/
theorem recoverOne_eq_recoverMergeBy (s : Array TokEntry) (e : TokEntry) :
    recoverOne s e = recoverMergeBy (findTok s) e := by
  unfold recoverOne recoverMergeBy
  rw [decomposeX_eq_decomposeTokenBy]
  generalize decomposeTokenBy (findTok s) e.1 e.2 = l
  rcases l with _ | ⟨a, _ | ⟨b, _ | ⟨c, rest⟩⟩⟩
  · rfl
  · rfl
  · cases findTok s a <;> cases findTok s b <;> rfl
  · rfl

/-- **The executable recovery of one merge is the spec's** (`Bpe.recoverMerge`) when the
lookups agree. -/
theorem recoverOne_eq (s : Array TokEntry) (ranks : Ranks)
    (hl : ∀ t, findTok s t = rankOf ranks t) (e : TokEntry) :
    recoverOne s e = recoverMerge ranks e := by
  rw [recoverOne_eq_recoverMergeBy, recoverMergeBy_eq hl]

end Bpe.Exec
