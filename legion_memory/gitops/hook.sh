#!/bin/sh
{mark}: repairs .planning/memory tables after git has changed them.
{format}
# Installed by `legion-memory git install`; `legion-memory git install --uninstall` removes it
# and puts back the hook that was here before (kept meanwhile as {name}{chained}).
status=0
chained="$0{chained}"
git_dir=${{GIT_DIR:-.git}}
[ -d "$git_dir" ] || git_dir=$(git rev-parse --git-dir 2>/dev/null)
# The repair as a commit of its own on top of what git just made (plumbing: git may still hold
# the merge's state files while this hook runs, and porcelain commit would refuse).
commit_repair() {{
    tree=$(git write-tree) && made=$(git commit-tree "$tree" -p HEAD -m "$1") && git update-ref -m "$1" HEAD "$made"
}}
# `git rebase --update-refs` moves the stack's other branches after this hook, to the tips git
# lists in $1 (a ref, its tip before, its tip to be: a line each). Each gets the repair its own
# rebase would give it: this hook, run with the rebase's pairs up to that tip in a scratch
# worktree of its new tip, commits it there, and git then moves the branch to that repair
# instead (docs/decisions.md#stacked-branches). Only the memory files are checked out there, by
# plumbing that runs no hook of the user's.
repair_stack() {{
    self="$(cd "$(dirname "$0")" && pwd)/$(basename "$0")"
    # The scratch worktree holds no rebase state and no ORIG_HEAD: what the rebase was replayed
    # onto and the branch's tip before it are named.
    onto=$(cat "$git_dir/rebase-merge/onto" 2>/dev/null)
    awk 'NR % 3 == 1 {{ ref = $0 }} NR % 3 == 2 {{ was = $0 }} NR % 3 == 0 {{ print ref, was, $0 }}' "$1" |
    while read -r ref was tip; do
        [ "$was" != "$tip" ] && git rev-parse -q --verify "$tip^{{commit}}" >/dev/null 2>&1 || continue
        # Memory the rebase left as the branch had it needs nothing; only the rest pays a run.
        git diff --quiet "$was" "$tip" -- "$memory" 2>/dev/null && continue
        pairs=$(printf '%s\n' "$rewritten" | while read -r old new; do
            git merge-base --is-ancestor "$new" "$tip" 2>/dev/null && echo "$old $new"
        done)
        [ -n "$pairs" ] && scratch=$(mktemp -d 2>/dev/null) || continue
        repaired=""
        if git worktree add -q --no-checkout --detach "$scratch/tree" "$tip" >/dev/null 2>&1; then
            repaired=$(cd "$scratch/tree" && unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE &&
                git read-tree HEAD && git ls-files -- "$memory" | git checkout-index -f --stdin &&
                printf '%s\n' "$pairs" | LEGION_MEMORY_STACKED=1 LEGION_MEMORY_REBASE_ONTO="$onto" \
                    LEGION_MEMORY_REBASE_STARTED="$was" "$self" rebase >/dev/null &&
                git rev-parse HEAD)
            git worktree remove --force "$scratch/tree" >/dev/null 2>&1
        fi
        rm -rf "$scratch"
        [ -n "$repaired" ] && [ "$repaired" != "$tip" ] || continue
        awk -v ref="$ref" -v repaired="$repaired" 'NR % 3 == 1 {{ at = ($0 == ref) }}
            NR % 3 == 0 && at {{ $0 = repaired }} {{ print }}' "$1" >"$1.new" && mv "$1.new" "$1" &&
            echo "legion-memory: repaired $ref, which the rebase moved too, in a commit of its own" >&2
    done
}}
# Whether `git am -3` finds nothing to change in the series' mail $1 (number $2) and so skips
# it, running no hook: the mail does not apply as text, and its 3-way merge (the blobs its index
# lines name before and after it, merged with HEAD; a memory file by the driver, told to weigh
# that mail and to note nothing) leaves every file as HEAD holds it. A record the mail stores
# that HEAD holds under its own ID is one.
merges_to_head() {{
    git apply --check "$1" >/dev/null 2>&1 && return 1
    # Cheap first, before the driver runs: a table row the mail adds to a memory file, which
    # HEAD's version of that file holds under no ID, is something new (a record, a move).
    added=$(awk '/^diff --git / {{ file = substr($4, 3) }}
        /^\+\|/ && file ~ /^\.planning\/memory\/[^\/]*\.md$/ {{ sub(/^\+\| *[^|]*\|/, "|"); print file "\t" $0 }}' "$1")
    while IFS="$(printf '\t')" read -r file row; do
        [ -z "$file" ] || git show "HEAD:$file" 2>/dev/null | grep -qF -- "$row" || return 1
    done <<EOF
$added
EOF
    scratch=$(mktemp -d 2>/dev/null) || return 1
    GIT_INDEX_FILE="$scratch/base" git apply --build-fake-ancestor="$scratch/base" "$1" 2>/dev/null &&
        cp "$scratch/base" "$scratch/theirs" &&
        GIT_INDEX_FILE="$scratch/theirs" git apply --cached "$1" 2>/dev/null
    alike=$?
    while [ "$alike" = 0 ] && read -r path; do
        base=$(GIT_INDEX_FILE="$scratch/base" git rev-parse -q --verify ":$path" 2>/dev/null)
        theirs=$(GIT_INDEX_FILE="$scratch/theirs" git rev-parse -q --verify ":$path" 2>/dev/null)
        ours=$(git rev-parse -q --verify "HEAD:$path" 2>/dev/null)
        [ "$ours" = "$theirs" ] || [ "$base" = "$theirs" ] && continue
        # Taken whole from the mail, removed, or a conflict: git writes something new.
        [ "$ours" != "$base" ] && [ -n "$ours" ] && [ -n "$theirs" ] || {{ alike=1; break; }}
        : >"$scratch/o"
        [ -z "$base" ] || git cat-file blob "$base" >"$scratch/o"
        git cat-file blob "$ours" >"$scratch/a" && git cat-file blob "$theirs" >"$scratch/b" || {{ alike=1; break; }}
        if [ "$(git check-attr merge -- "$path" | sed 's/.*: merge: //')" = "{driver_attribute}" ] &&
            git config --get {driver}.driver >/dev/null 2>&1; then
            LEGION_MEMORY_MAIL_AHEAD=$2 {command} git merge-driver "$scratch/o" "$scratch/a" "$scratch/b" 7 "$path" 2>/dev/null
        else
            git merge-file -q "$scratch/a" "$scratch/o" "$scratch/b" 2>/dev/null
        fi || {{ alike=1; break; }}
        [ "$(git hash-object "$scratch/a")" = "$ours" ] || alike=1
    done <<EOF
$({{ GIT_INDEX_FILE="$scratch/base" git ls-files; GIT_INDEX_FILE="$scratch/theirs" git ls-files; }} 2>/dev/null | sort -u)
EOF
    rm -rf "$scratch"
    return $alike
}}
# `git am` names no commit for the patch it applies: doctor reads the patch's side from the
# patch git still holds, and ours from HEAD's parent.
if [ "{name}" = post-applypatch ]; then
    LEGION_MEMORY_PATCH_APPLIED=1
    export LEGION_MEMORY_PATCH_APPLIED
fi
# post-rewrite reads "<old> <new>" lines: the old commits say what each reference meant; pre-push
# reads "<local ref> <local commit> <remote ref> <remote commit>" lines. A chained hook gets them too.
input=""
if [ "{name}" = post-rewrite ] || [ "{name}" = pre-push ]; then
    input=$(cat)
fi
rewritten=""
if [ "{name}" = post-rewrite ]; then
    rewritten=$input
    LEGION_MEMORY_REWRITTEN=$(printf '%s\n' "$rewritten" | cut -d' ' -f1 | tr '\n' ' ')
    export LEGION_MEMORY_REWRITTEN
    if [ "$1" = rebase ]; then
        LEGION_MEMORY_REWRITTEN_AS=$(printf '%s\n' "$rewritten" | cut -d' ' -f2 | tr '\n' ' ')
        export LEGION_MEMORY_REWRITTEN_AS
        # A squash or fixup names none of the commits it folded: noted, so that in this clone's
        # history it stands for them, as git's own squash message does (gitops/folded_commits.py),
        # where every worktree reads it.
        folded=$(printf '%s\n' "$rewritten" | awk '{{ olds[$2] = olds[$2] " " $1; n[$2]++ }}
            END {{ for (new in n) if (n[new] > 1) print new olds[new] }}')
        # Git names the commit a squash ended in even when the rebase did not write it: a squash
        # emptied, `git reset HEAD^` as git advises, then the next squash amends the upstream's
        # commit, and emptied again, its parent. The upstream's own commits folded nothing.
        onto=$(cat "$git_dir/rebase-merge/onto" 2>/dev/null)
        if [ -n "$onto" ] && [ -n "$folded" ]; then
            folded=$(printf '%s\n' "$folded" | while read -r new olds; do
                git merge-base --is-ancestor "$new" "$onto" 2>/dev/null || echo "$new $olds"
            done)
        fi
        # A rebase that flattened merges dropped them, and the forgets and restores made inside
        # them with them: the new tip stands for the line it replaced, as a fold does (its
        # commits that changed memory: a merge that took one parent's memory moved nothing).
        # A merge `--rebase-merges` made again is rewritten as a merge of the new line; one
        # rewritten as the upstream's tip or a commit of one parent was dropped (as post-checkout
        # notes the merges of a rebase with nothing to replay, below).
        flattened=""
        [ -z "$onto" ] || flattened=$(git rev-list --merges "$onto..ORIG_HEAD" 2>/dev/null)
        for merge in $flattened; do
            copy=$(printf '%s\n' "$rewritten" | awk -v merge="$merge" '$1 == merge {{ print $2; exit }}')
            [ -n "$copy" ] && [ "$copy" != "$onto" ] && git rev-parse -q --verify "$copy^2" >/dev/null 2>&1 && continue
            line=$(git rev-list --full-history "$onto..ORIG_HEAD" -- .planning/memory | tr '\n' ' ')
            folded=$(printf '%s\n%s\n' "$folded" "$(git rev-parse HEAD) $line")
            break
        done
        if [ -n "$(printf '%s' "$folded" | tr -d '[:space:]')" ]; then
            shared=$(git rev-parse --git-common-dir 2>/dev/null) && [ -n "$shared" ] || shared=$git_dir
            printf '%s\n' "$folded" >> "$shared/{folded}"
        fi
    fi
fi
# A scratch worktree's run for a branch the rebase moved along the stack (below) is ours alone.
if [ -x "$chained" ] && [ -z "$LEGION_MEMORY_STACKED" ]; then
    if [ "{name}" = post-rewrite ] || [ "{name}" = pre-push ]; then
        {{ [ -z "$input" ] || printf '%s\n' "$input"; }} | "$chained" "$@" || status=$?
    else
        "$chained" "$@" || status=$?
    fi
fi
# A rebase with nothing to replay (the branch's commits are the upstream's already, and its
# merges are dropped) writes no commit: git runs no post-rewrite hook, and what those merges
# changed themselves (docs/decisions.md#merge-changes) would go unrepaired. Git runs this hook
# once, when the rebase checks out where it starts from the branch's tip (the upstream, or the
# last of the branch's first commits that already stand on it: git reuses those as they are),
# its todo list then empty: each merge of the branch that commit does not hold is noted as
# rewritten to it, as git notes a commit it drops as already upstream, so that git runs
# post-rewrite when the rebase ends.
if [ "{name}" = post-checkout ]; then
    state="$git_dir/rebase-merge"
    if [ "$3" = 1 ] && [ -d "$state" ] && [ ! -s "$state/rewritten-list" ] &&
        [ "$1" = "$(cat "$state/orig-head" 2>/dev/null)" ] &&
        ! sed '/^#/d;/^noop/d;/^[[:space:]]*$/d' "$state/git-rebase-todo" 2>/dev/null | grep -q .; then
        git rev-list --merges "$2..$1" 2>/dev/null | sed "s/\$/ $2/" >>"$state/rewritten-list"
    fi
    exit $status
fi
# An amend inside a rebase (a `squash` or `fixup` folding a commit into the one before, or one's
# own `commit --amend` where the rebase stopped), or a merge made there (a merge the rebase could
# not replay, made by hand), is one of its steps: the rebase's own hook repairs once it ends,
# reading every commit it replayed. A repair now would read this step alone (and use up the
# driver's note of what the rebase renumbered); a commit of it would stop the rebase.
if [ "{name}" = post-merge ] || {{ [ "{name}" = post-rewrite ] && [ "$1" = amend ]; }}; then
    if [ -d "$git_dir/rebase-merge" ] || [ -d "$git_dir/rebase-apply" ]; then
        exit $status
    fi
fi
# A sequence of picks that ended with `cherry-pick --skip` ran no hook after its last commit
# (below): its repair waits for the next commit, and pushing before one would spread what the
# picks left. So a push of that commit gets the repair committed now, and is stopped, to be run
# again with it. Any other push pays one test for the note (and stops here if a chained hook
# refused it).
made_by="{name}"
if [ "{name}" = pre-push ]; then
    [ "$status" = 0 ] || exit $status
    sequence="$git_dir/{pick_sequence}"
    [ -f "$sequence" ] && [ ! -d "$git_dir/sequencer" ] || exit 0
    last=$(tail -n 1 "$sequence")
    tip=${{last#* }}
    pushed=$(printf '%s\n' "$input" | awk -v tip="$tip" '$2 == tip {{ sub("^refs/heads/", "", $1); print $1; exit }}')
    [ -n "$pushed" ] || exit 0
    # Only where that commit is checked out can the repair be made in the work tree.
    if [ "$(git rev-parse -q --verify HEAD 2>/dev/null)" != "$tip" ]; then
        echo "legion-memory: stopped the push: $pushed ends with picks whose memory is not repaired yet (the cherry-pick ended with --skip); check out $pushed and push again" >&2
        exit 1
    fi
    made_by="cherry-pick --skip"
fi
# Mid-way through a series of patches `git am` holds the index itself: a repair committed now
# would be undone by the next patch's commit, and one left in the work tree would stop the series
# ("your local changes would be overwritten"). The last patch applied repairs: the last of the
# series, or this one when every later patch is one `git am` will skip, running no hook: a change
# the work tree holds already (its reverse applies), or one whose 3-way merge leaves every file as
# HEAD holds it (`git am -3` finds nothing to change, "Patch already applied"). A copy of a commit
# HEAD holds is no sign: main may have undone part of it since, and the patch applies again.
if [ "{name}" = post-applypatch ]; then
    applying=$(git rev-parse --git-path rebase-apply 2>/dev/null)
    next=$(cat "$applying/next" 2>/dev/null)
    last=$(cat "$applying/last" 2>/dev/null)
    if [ -n "$next" ] && [ -n "$last" ] && [ "$next" -lt "$last" ] 2>/dev/null; then
        later=$next
        while [ "$later" -lt "$last" ]; do
            later=$((later + 1))
            mail="$applying/$(printf '%04d' "$later")"
            git apply --check -R "$mail" >/dev/null 2>&1 ||
                merges_to_head "$mail" "$later" ||
                exit $status
        done
    fi
fi
# post-commit acts only on a commit that integrated other work, which runs no other hook: a
# cherry-pick or revert, or the commit that concludes a stopped merge, pick or revert; or on the
# first commit after a stash or a `cherry-pick -n` was applied with a renumbering the driver noted
# (no hook runs after either), or after a sequence of picks that ended unrepaired; or on a commit
# after which one ID is on two rows: a stash applied over a teammate's record of that ID, archived
# in the commits pulled, so that git took the stash's file whole and no driver ran to note it.
# Other commits pay one git call and one grep.
if [ "{name}" = post-commit ]; then
    sequence="$git_dir/{pick_sequence}"
    # The reflog's subject, then the commit's message: a revert concluded after it stopped says
    # only "commit", and git's message of it is what tells (REVERT_HEAD is gone by now).
    done_by=$(git log -g -1 --format='%gs%n%B' HEAD 2>/dev/null)
    # A stopped merge or squash concluded: its resolution may have taken one side's whole file.
    # A squash is known by git's own message, which lists the commits squashed, newest first.
    concluded=""
    case $done_by in
        "cherry-pick"* | "commit (cherry-pick)"*) integrated=1 ;;
        "commit (merge)"*) integrated=1 concluded=$(git rev-list --parents -n 1 HEAD | cut -d' ' -f2-) ;;
        "commit: Squashed commit of the following:"*)
            squashed=$(printf '%s\n' "$done_by" | sed -n 's/^commit \([0-9a-f]*\)$/\1/p' | head -n 1)
            integrated=1 concluded="$(git rev-parse -q --verify HEAD^) $squashed" ;;
        *) integrated="" ;;
    esac
    LEGION_MEMORY_MERGE_CONCLUDED=$concluded
    export LEGION_MEMORY_MERGE_CONCLUDED
    # A revert's references follow what they meant on its two sides: before it (HEAD^, or where
    # a sequence of reverts started) and the commit it went back to, which git's message names
    # (the reverted commit's parent, or the mainline parent of a merge): undoing a merge gives
    # its renumbered records their old numbers back.
    reverted=""
    case $done_by in
        "revert"* | "commit: "*"This reverts commit "*) integrated=1 reverted=1 ;;
    esac
    # Not inside a rebase (each of its picks runs this hook): its post-rewrite hook repairs.
    duplicated=""
    if [ ! -d "$git_dir/rebase-merge" ] && [ ! -d "$git_dir/rebase-apply" ]; then
        duplicated=$(grep -ho '^| *[{prefixes}]-[0-9][0-9]* *|' {tables} 2>/dev/null | tr -d '| ' | sort | uniq -d)
    fi
    if [ -z "$integrated" ] && [ -n "$duplicated" ]; then
        LEGION_MEMORY_COMMITTED=1
        export LEGION_MEMORY_COMMITTED
    fi
    [ -n "$integrated$duplicated" ] || [ -f "$git_dir/{applied_stash}" ] || [ -f "$sequence" ] || exit $status
    # Mid-way through picking several commits git holds the index itself: a repair committed now
    # would stop the sequence ("your local changes would be overwritten"). The last pick repairs.
    # Unless git finds the last picks applied already: the sequence then ends with
    # `cherry-pick --skip`, after which no hook runs. So each pick notes where the sequence
    # started, the last commit it picks (the side the last pick's hook would name) and the commit
    # just written, for the next commit's hook. A note of another sequence is replaced.
    todo=$(git rev-parse --git-path sequencer/todo 2>/dev/null)
    # A sequence of reverts is noted as none: its commits are no picks of what it names.
    if [ -f "$todo" ] && [ "$(grep -c '^[^#]' "$todo")" -gt 1 ]; then
        [ -n "$reverted" ] && exit $status
        started=$(cat "$(git rev-parse --git-path sequencer/head)" 2>/dev/null)
        [ "$(head -n 1 "$sequence" 2>/dev/null)" = "$started" ] || echo "$started" >"$sequence"
        final=$(grep '^[^#]' "$todo" | tail -n 1 | cut -d' ' -f2)
        echo "$(git rev-parse -q --verify "$final^{{commit}}" 2>/dev/null) $(git rev-parse HEAD)" >>"$sequence"
        exit $status
    fi
    # A cherry-pick's sides: where it started (HEAD^, or the HEAD before the first of several
    # picks) and the commit picked, which git names only while this hook runs.
    LEGION_MEMORY_PICKED=$(git rev-parse -q --verify CHERRY_PICK_HEAD 2>/dev/null)
    LEGION_MEMORY_PICKED_ONTO=$(cat "$(git rev-parse --git-path sequencer/head)" 2>/dev/null)
    # The first commit on top of the last commit a sequence wrote, the sequence over: its sides
    # are the noted ones, and what it wrote ends there (this commit is no pick's). A commit on
    # another branch leaves the note to the branch that ends there, for its next commit or push;
    # when none does any more (the picks undone), the note goes.
    if [ -f "$sequence" ]; then
        last=$(tail -n 1 "$sequence")
        if [ "$(git rev-parse -q --verify HEAD^ 2>/dev/null)" = "${{last#* }}" ]; then
            if [ -z "$LEGION_MEMORY_PICKED" ] && [ ! -d "$git_dir/sequencer" ]; then
                LEGION_MEMORY_PICKED_ONTO=$(head -n 1 "$sequence")
                LEGION_MEMORY_PICKED=${{last% *}}
                LEGION_MEMORY_PICKED_TIP=${{last#* }}
                export LEGION_MEMORY_PICKED_TIP
                integrated=1
            fi
            rm -f "$sequence"
        elif [ -z "$(git for-each-ref --points-at "${{last#* }}" refs/heads 2>/dev/null)" ]; then
            rm -f "$sequence"
        fi
    fi
    [ -n "$integrated$duplicated" ] || [ -f "$git_dir/{applied_stash}" ] || exit $status
    export LEGION_MEMORY_PICKED LEGION_MEMORY_PICKED_ONTO
    if [ -n "$reverted" ]; then
        back_to=$(printf '%s\n' "$done_by" | sed -n 's/^changes made to \([0-9a-f]*\)\.$/\1/p' | tail -n 1)
        [ -n "$back_to" ] || back_to=$(printf '%s\n' "$done_by" |
            sed -n 's/^This reverts commit \([0-9a-f]*\)[.,].*$/\1^/p' | tail -n 1)
        LEGION_MEMORY_REVERTED="${{LEGION_MEMORY_PICKED_ONTO:-$(git rev-parse -q --verify HEAD^ 2>/dev/null)}} $(git rev-parse -q --verify "$back_to" 2>/dev/null)"
        export LEGION_MEMORY_REVERTED
    fi
fi
# A memory file that ended on one side as the merge base had it, though that side's commits changed
# it (a forget undone by a restore), was taken whole from the other side by git, unweighed: doctor
# weighs the records the two sides hold in different states.
# When both sides changed memory, git may have taken one file whole from each without calling the
# driver (patterns from ours, outcomes from theirs), or merged them as text (octopus): doctor
# follows each side's references. The same after the commit that concludes a stopped merge, and
# after a squash (not yet committed: its sides are HEAD and the newest commit git lists).
# An octopus merge's sides are all its parents: a later branch may hold a record's latest state.
# A squash first: it leaves HEAD where it was, and HEAD may be a merge of its own, long made.
sides=""
if [ "{name}" = post-merge ] && [ "$1" = 1 ]; then
    squashed=$(sed -n 's/^commit \([0-9a-f]*\)$/\1/p' "$(git rev-parse --git-path SQUASH_MSG)" 2>/dev/null | head -n 1)
    [ -n "$squashed" ] && sides="HEAD $squashed"
elif [ "{name}" = post-merge -o "{name}" = post-commit ] &&
    git rev-parse -q --verify HEAD^2 >/dev/null 2>&1; then
    sides=$(git rev-list --parents -n 1 HEAD | cut -d' ' -f2-)
elif [ "{name}" = post-commit ] && [ -n "$concluded" ]; then
    sides=$concluded
fi
if [ -n "$sides" ]; then
    base=$(git merge-base --octopus $sides 2>/dev/null)
    changed=0
    # Commits this clone noted as standing for others (a fold, a line a rebase flattened): what
    # they stand for may have changed a file they leave as base had it.
    noted=$(git rev-parse --git-common-dir 2>/dev/null) && noted="$noted/{folded}"
    noted=$(cut -d' ' -f1 "$noted" 2>/dev/null | sed '/^$/d')
    for side in $sides; do
        [ -z "$base" ] && continue
        differ=$(git diff --name-only "$base" "$side" -- .planning/memory 2>/dev/null)
        [ -n "$differ" ] && changed=$((changed + 1))
        if [ -n "$noted" ] && git rev-list "$base..$side" 2>/dev/null | grep -qxF "$noted"; then
            LEGION_MEMORY_RECHECK="$sides"
            export LEGION_MEMORY_RECHECK
        fi
        # A file this side's commits changed that ends as base had it: git took the other's.
        for file in $(git log --full-history --format= --name-only "$base..$side" -- .planning/memory 2>/dev/null | sort -u); do
            if ! printf '%s\n' "$differ" | grep -qxF "$file"; then
                LEGION_MEMORY_RECHECK="$sides"
                export LEGION_MEMORY_RECHECK
            fi
        done
    done
    if [ "$changed" -ge 2 ]; then
        LEGION_MEMORY_BOTH_SIDES=1
        export LEGION_MEMORY_BOTH_SIDES
    fi
fi
git config --get {driver}.driver >/dev/null 2>&1 || echo "legion-memory: the merge driver is not configured in this clone; run: legion-memory git install" >&2
memory=.planning/memory
# The files' bytes too: a repair of a file the user had changed already leaves its status as it was.
state() {{
    git status --porcelain -- "$memory" 2>/dev/null
    cat "$memory"/*.md 2>/dev/null | cksum
}}
own=$(git status --porcelain -- "$memory" 2>/dev/null)
before=$(state)
# A squash leaves its result staged: only unstaged changes there are the user's own.
unstaged=$(git diff --name-only -- "$memory" 2>/dev/null)
{command} doctor --fix --quiet >&2 || echo "legion-memory: repair failed, see: legion-memory doctor" >&2
if [ "$before" != "$(state)" ]; then
    if [ "{name}" = post-merge ] && [ "$1" = 1 ] && [ -z "$unstaged" ]; then
        git add -A -- "$memory" && echo "legion-memory: repaired $memory; the repair is staged with your squash" >&2
    elif [ -n "$own" ]; then
        echo "legion-memory: repaired $memory beside your own changes there; review and commit: git add $memory && git commit" >&2
    elif git add -A -- "$memory" && commit_repair "Repair .planning/memory after $made_by (legion-memory doctor --fix)"; then
        echo "legion-memory: committed the repair of $memory as its own commit" >&2
        [ "{name}" = pre-push ] && rm -f "$sequence"
    else
        echo "legion-memory: repaired $memory but could not commit it; run: git commit -m 'Repair memory' -- $memory" >&2
    fi
    if [ "{name}" = pre-push ]; then
        echo "legion-memory: stopped the push, which would leave the repair behind; push again" >&2
        exit 1
    fi
fi
if [ "{name}" = post-rewrite ] && [ "$1" = rebase ] && [ -f "$git_dir/rebase-merge/update-refs" ]; then
    repair_stack "$git_dir/rebase-merge/update-refs"
fi
exit $status
