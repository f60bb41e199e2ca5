module

public import Bpe.Exec.RanksLookup
public import Bpe.Exec.Encode

/-!
# The executable merge recovery is the spec's, given an equal lookup

`Bpe.Exec.recoverOne` (in `Bpe.Exec.Ranks`) is `Bpe.recoverMerge` with the byte-string lookup
swapped for `findTok`: the same loop (`decomposeLoopX` = `Bpe.decomposeLoop`), the same choice
of pair (`bestPairX` = `Bpe.bestPairIndex`), the same merge step (`mergeAtX` = `Bpe.mergeAt`).
So whenever `findTok s` answers as `rankOf ranks` does, the executable recovery records
exactly the spec's merge for every entry (`recoverOne_eq`). `findTok_eq` gives that answer on
the entries of the key array itself; `Bpe.Exec.RanksTables` shows that the key array (a sort of
the parsed entries) answers as the parsed table in file order (`findTok_keysOf`).
-/

@[expose] public section

namespace Bpe.Exec

@[simp] theorem singles_eq : ∀ a : List UInt8, singles a = a.map fun b => [b]
  | [] => rfl
  | x :: xs => by simp [singles, singles_eq xs]

theorem allowedX_eq (s : Array TokEntry) (ranks : Ranks)
    (hl : ∀ t, findTok s t = rankOf ranks t) (m : Nat) (t : List UInt8) :
    allowedX s m t = allowedRank ranks (some m) t := by
  unfold allowedX allowedRank
  rw [hl]
  simp only [rankOf]
  cases ranks.lookup t <;> rfl

theorem bestPairX_eq (s : Array TokEntry) (ranks : Ranks)
    (hl : ∀ t, findTok s t = rankOf ranks t) (m : Nat) :
    ∀ (i : Nat) (parts : List (List UInt8)),
      bestPairX s m i parts = bestPairIndex ranks (some m) i parts
  | i, a :: b :: rest => by
    rw [bestPairX, bestPairIndex, allowedX_eq s ranks hl, appendBytes_eq,
      bestPairX_eq s ranks hl m (i + 1) (b :: rest)]
    cases allowedRank ranks (some m) (a ++ b) with
    | none => rfl
    | some r =>
      cases bestPairIndex ranks (some m) (i + 1) (b :: rest) with
      | none => rfl
      | some p =>
        obtain ⟨j, q⟩ := p
        rfl
  | _, [] => rfl
  | _, [_] => rfl

theorem mergeAtX_eq : ∀ (i : Nat) (parts : List (List UInt8)),
    mergeAtX i parts = mergeAt i parts
  | 0, a :: b :: rest => by simp [mergeAtX, mergeAt]
  | i + 1, a :: rest => by simp [mergeAtX, mergeAt, mergeAtX_eq i rest]
  | 0, [] => rfl
  | 0, [_] => rfl
  | _ + 1, [] => rfl

theorem decomposeLoopX_eq (s : Array TokEntry) (ranks : Ranks)
    (hl : ∀ t, findTok s t = rankOf ranks t) (m : Nat) :
    ∀ (fuel : Nat) (parts : List (List UInt8)),
      decomposeLoopX s m fuel parts = decomposeLoop ranks (some m) fuel parts
  | 0, _ => rfl
  | fuel + 1, parts => by
    rw [decomposeLoopX, decomposeLoop_succ, bestPairX_eq s ranks hl]
    cases bestPairIndex ranks (some m) 0 parts with
    | none => rfl
    | some p =>
      obtain ⟨i, r⟩ := p
      show decomposeLoopX s m fuel (mergeAtX i parts) =
        decomposeLoop ranks (some m) fuel (mergeAt i parts)
      rw [mergeAtX_eq, decomposeLoopX_eq s ranks hl m fuel]

/-- The executable decomposition is `Bpe.decomposeToken` (bound `some m`) when the lookups
agree. -/
theorem decomposeX_eq (s : Array TokEntry) (ranks : Ranks)
    (hl : ∀ t, findTok s t = rankOf ranks t) (tok : List UInt8) (m : Nat) :
    decomposeX s tok m = decomposeToken ranks tok (some m) := by
  simp only [decomposeX, decomposeToken, lenBytes_eq, singles_eq, decomposeLoopX_eq s ranks hl]

/-- **The executable recovery of one merge is the spec's** (`Bpe.recoverMerge`) when the
lookups agree. -/
theorem recoverOne_eq (s : Array TokEntry) (ranks : Ranks)
    (hl : ∀ t, findTok s t = rankOf ranks t) (e : TokEntry) :
    recoverOne s e = recoverMerge ranks e := by
  unfold recoverOne recoverMerge
  rw [decomposeX_eq s ranks hl]
  generalize decomposeToken ranks e.1 (some e.2) = l
  rcases l with _ | ⟨a, _ | ⟨b, _ | ⟨c, rest⟩⟩⟩
  · rfl
  · rfl
  · simp only [hl]
    cases rankOf ranks a <;> cases rankOf ranks b <;> rfl
  · rfl

end Bpe.Exec
