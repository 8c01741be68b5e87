"""The small Legion project the demo builds: the files Legion's own commands would have written.

A book-lending API ("Bookshelf") three phases long: phase 1 is complete (its SUMMARY can be
compacted), phase 2 is the current one (STATE.md says so, which keeps its outcomes from being
pruned), phase 3 is still to come. The agent catalog sits where the tool looks for it inside a
project, so task types and cross-division work are scored as in a real Legion install.
"""

from __future__ import annotations

CATALOG = """\
# Agent Catalog

## Section 1: Agent Catalog

### Engineering Division (2 agents)

| ID | Specialty | Task Types |
|----|-----------|------------|
| engineering-backend-architect | Services, storage and APIs | backend, api-development |
| engineering-frontend-developer | Web interfaces | frontend, react |

### Testing Division (2 agents)

| ID | Specialty | Task Types |
|----|-----------|------------|
| testing-api-tester | API validation and contract tests | api-testing, integration-testing |
| testing-qa-verification-specialist | QA sign-off | quality-review, bug-verification |
"""

STATE = """\
# Project State

## Current Position

Phase: 2 of 3 (Loans)
Plan: 2 of 2
Status: In progress — 02-01 executed

## Next Action

Run `/legion:build` to execute plan 02-02.
"""

ROADMAP = """\
# Bookshelf — Roadmap

## Phases

- [x] Phase 1: Catalog API (1 plan)
- [ ] Phase 2: Loans (2 plans)
- [ ] Phase 3: Notifications (1 plan)

## Phase Details

### Phase 1: Catalog API
**Goal**: Books can be listed, searched and added through a JSON API.
**Requirements**: CAT-01, CAT-02
**Plans**: 1

### Phase 2: Loans
**Goal**: Members borrow and return books; overdue loans are chased.
**Requirements**: LOAN-01, LOAN-02
**Plans**: 2

### Phase 3: Notifications
**Goal**: Members choose how they are told about due dates.
**Requirements**: NOTE-01
**Plans**: 1

## Progress

| Phase | Plans Complete | Status |
|-------|----------------|--------|
| 1. Catalog API | 1/1 | Complete |
| 2. Loans | 1/2 | In Progress |
| 3. Notifications | 0/1 | Not started |
"""

CATALOG_PLAN = """\
---
phase: 1
plan: 01-01
title: Catalog Endpoints
wave: 1
files_modified:
  - src/bookshelf/catalog.py
  - src/bookshelf/search.py
  - tests/test_catalog.py
requirements: [CAT-01, CAT-02]
agents:
  - engineering-backend-architect
---

<objective>
List, search and add books through `/books`, with pagination that survives concurrent inserts.
</objective>
"""

CATALOG_SUMMARY = """\
# Plan 01-01 Summary: Catalog Endpoints

## Status: Complete

## Agent: engineering-backend-architect

**One-liner:** Catalog endpoints with cursor pagination and an ISBN search index

## Changes
- **src/bookshelf/catalog.py**: `GET /books` pages with a cursor; `POST /books` checks the ISBN.
- **src/bookshelf/search.py**: Search index over title, author and ISBN, rebuilt on import.
- **tests/test_catalog.py**: Pagination under concurrent inserts, ISBN validation, search ranking.

## Decisions
- Cursor pagination instead of offsets: offsets skipped rows while books were being added.
- The ISBN is the natural key; duplicates are merged at import, never stored twice.

## Execution Notes
Task 1 started from the empty `src/bookshelf/` package. The first version of `GET /books` used
`LIMIT`/`OFFSET`; the concurrency test showed a client paging through 500 books while 20 were
being added saw 4 of them twice and missed 3. The cursor is the last row's `(title, id)` pair,
base64-encoded, so pages stay stable whatever is inserted before them.

Task 2 built the search index in memory from the books table at start-up and after each import.
Ranking weighs title matches over author matches; an exact ISBN match always comes first. A
reindex after importing a supplier file with repeated ISBNs failed on the unique constraint;
duplicates are now merged before the insert (the newest record wins, the others' copies add up).

Task 3 wrote the tests before the handlers were final; two of them caught a missing `422` for
malformed ISBNs (a 13-digit ISBN with a bad check digit was accepted) and an unstable sort order
for books with the same title.

## Verification
```
pytest -q --cov=bookshelf tests/test_catalog.py
..................                                                       [100%]
Name                          Stmts   Miss  Cover
-------------------------------------------------
src/bookshelf/catalog.py         84      3    96%
src/bookshelf/search.py          61      4    93%
-------------------------------------------------
TOTAL                           145      7    95%
18 passed in 0.42s
```

## Requirements
- CAT-01: List and add books through a JSON API
- CAT-02: Search books by title, author or ISBN

## Next Phase Readiness
Loans (phase 2) can rely on `GET /books/{isbn}` returning one book per ISBN. The search index is
rebuilt synchronously on import, which takes about two seconds for 50,000 books; a background
rebuild is not needed before phase 3. No open issues, no escalations.
"""

LOANS_PLAN = """\
---
phase: 2
plan: 02-01
title: Checkout and Return
wave: 1
files_modified:
  - src/bookshelf/loans.py
  - tests/test_loans.py
requirements: [LOAN-01]
agents:
  - engineering-backend-architect
---

<objective>
Members check books out and return them; a book is never lent twice at once.
</objective>
"""

LOANS_SUMMARY = """\
# Plan 02-01 Summary: Checkout and Return

## Status: Complete

## Agent: engineering-backend-architect

**One-liner:** Loan checkout and return endpoints with a per-book lock

## Changes
- **src/bookshelf/loans.py**: `POST /loans` and `POST /loans/{id}/return`, one open loan per book.
- **tests/test_loans.py**: Double checkout, return of a returned book, due dates.

## Verification
```
pytest -q tests/test_loans.py
11 passed in 0.31s
```

## Requirements
- LOAN-01: Members borrow and return books
"""

# Relative path -> text, in the order the demo writes (and lists) them.
PROJECT_FILES = {
    "skills/agent-registry/CATALOG.md": CATALOG,
    ".planning/STATE.md": STATE,
    ".planning/ROADMAP.md": ROADMAP,
    ".planning/phases/01-catalog-api/01-01-PLAN.md": CATALOG_PLAN,
    ".planning/phases/01-catalog-api/01-01-SUMMARY.md": CATALOG_SUMMARY,
    ".planning/phases/02-loans/02-01-PLAN.md": LOANS_PLAN,
    ".planning/phases/02-loans/02-01-SUMMARY.md": LOANS_SUMMARY,
}
