// Ancestry in the clone's history, for "the synced revision contains the merge commit" (G5). A
// commit the clone does not hold (a shallow clone, a revision not fetched) counts as not contained,
// so nothing is marked Applied early; a clone with full history (fetch-depth: 0) can always tell.
import { simpleGit } from 'simple-git';

/** Git history: whether `commit` is `revision` or one of its ancestors. */
export interface RevisionPort {
  contains(revision: string, commit: string): Promise<boolean>;
}

export function gitRevisions(repo: string): RevisionPort {
  const git = simpleGit({ baseDir: repo });
  return {
    // `commit` is an ancestor of `revision` when it is their merge base. (`merge-base --is-ancestor`
    // answers by exit code alone, which simple-git does not treat as a failure without stderr.)
    contains: (revision, commit) =>
      git.raw(['merge-base', commit, revision]).then(
        (base) => base.trim() === commit,
        () => false,
      ),
  };
}
