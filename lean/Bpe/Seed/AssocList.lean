module

public import Bpe.Seed.ListLemmas

/-!
# Association lists without a key twice

Generic facts about `List.lookup` on a list of pairs whose keys (or values) are distinct, used
by the rank tables of `Bpe.Ranks` (moved out of `Ranks/Basic`, issue 33): an entry is what
its key's lookup finds (`lookup_eq_some_of_mem`), the lookup does not depend on the order
(`lookup_eq_of_perm`), and distinct values identify their keys (`eq_of_mem_of_nodup_snd`).
-/

@[expose] public section

namespace Bpe

theorem lookup_eq_some_of_mem {α β : Type} [BEq α] [LawfulBEq α] :
    ∀ {v : List (α × β)} {k : α} {x : β}, (v.map Prod.fst).Nodup → (k, x) ∈ v →
      v.lookup k = some x
  | [], _, _, _, h => by simp at h
  | (k', x') :: v, k, x, hnd, hmem => by
    rw [List.map_cons, List.nodup_cons] at hnd
    rcases List.mem_cons.mp hmem with heq | hrest
    · simp only [Prod.mk.injEq] at heq
      obtain ⟨rfl, rfl⟩ := heq
      exact List.lookup_cons_self
    · have hne : k ≠ k' := by
        intro hkk
        exact hnd.1 (List.mem_map.mpr ⟨(k, x), hrest, hkk⟩)
      rw [lookup_cons_ne _ _ hne]
      exact lookup_eq_some_of_mem hnd.2 hrest

/-- On a list without duplicate keys, `List.lookup` does not depend on the order. -/
theorem lookup_eq_of_perm {α β : Type} [BEq α] [LawfulBEq α] {l l' : List (α × β)}
    (hp : l.Perm l') (hnd : (l.map Prod.fst).Nodup) (k : α) : l.lookup k = l'.lookup k := by
  have hnd' : (l'.map Prod.fst).Nodup := (hp.map Prod.fst).nodup_iff.mp hnd
  cases h : l.lookup k with
  | some v => exact (lookup_eq_some_of_mem hnd' (hp.mem_iff.mp (mem_of_lookup_eq_some h))).symm
  | none =>
    cases h' : l'.lookup k with
    | none => rfl
    | some v =>
      have h2 := lookup_eq_some_of_mem hnd (hp.mem_iff.mpr (mem_of_lookup_eq_some h'))
      rw [h] at h2
      simp at h2

theorem eq_of_mem_of_nodup_snd {α β : Type} :
    ∀ {v : List (α × β)} {a b : α} {x : β}, (v.map Prod.snd).Nodup → (a, x) ∈ v → (b, x) ∈ v →
      a = b
  | [], _, _, _, _, h, _ => by simp at h
  | (k, y) :: v, a, b, x, hnd, ha, hb => by
    rw [List.map_cons, List.nodup_cons] at hnd
    rcases List.mem_cons.mp ha with ha1 | ha2 <;> rcases List.mem_cons.mp hb with hb1 | hb2
    · simp only [Prod.mk.injEq] at ha1 hb1
      rw [ha1.1, hb1.1]
    · simp only [Prod.mk.injEq] at ha1
      obtain ⟨rfl, rfl⟩ := ha1
      exact (hnd.1 (List.mem_map.mpr ⟨_, hb2, rfl⟩)).elim
    · simp only [Prod.mk.injEq] at hb1
      obtain ⟨rfl, rfl⟩ := hb1
      exact (hnd.1 (List.mem_map.mpr ⟨_, ha2, rfl⟩)).elim
    · exact eq_of_mem_of_nodup_snd hnd.2 ha2 hb2

end Bpe
