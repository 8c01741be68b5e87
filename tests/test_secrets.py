"""Credentials are refused by every writer, every importer and validate, in every field and every
disguise, and no output ever shows one; real memory material is never refused."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import NamedTuple

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.processes import CLI, REPO_ROOT, Result

from legion_memory.schema.kinds import KINDS
from legion_memory.schema.secrets import secret_kind, secret_variants, secret_variants_of

MEMORY = Path(".planning/memory")


class Secret(NamedTuple):
    name: str
    text: str  # as someone would paste it
    core: str  # the part that must never be printed


def _s(name: str, text: str, core: str = "") -> Secret:
    return Secret(name, text, core or text)


# Fake values in each provider's documented shape; built from pieces so no scanner reads this file
# as holding real ones.
_AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfi" + "CYEXAMPLEKEY"
_JWT = (
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9."
    + "eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
)
FORMATS = [
    _s("AWS access key", "AKIA" + "IOSFODNN7EXAMPLE"),
    _s("AWS temporary access key", "ASIA" + "JEXAMPLEXEG2JICE"),
    _s("AWS secret key, bare", _AWS_SECRET),
    _s("AWS secret key, assigned", f"aws_secret_access_key = {_AWS_SECRET}", _AWS_SECRET),
    _s(
        "AWS secret key, env",
        "AWS_SECRET_ACCESS_KEY=Zx8/Kq2" + "Lm9Pw4Rt6Yu1Io3Pa5Sd7Fg9Hj0Kl2Zx",
        "Zx8/Kq2Lm9Pw4Rt6Yu1Io3Pa5Sd7Fg9Hj0Kl2Zx",
    ),
    _s("Stripe live key", "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc"),
    _s("Stripe restricted key", "rk_live_" + "51H8abcdEFGHijklMNOPqrst"),
    _s("Google API key", "AIza" + "SyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY"),
    _s("JSON Web Token", _JWT),
    _s(
        "Authorization: Bearer",
        "Authorization: Bearer " + "abcdef0123456789abcdef0123",
        "abcdef0123456789abcdef0123",
    ),
    _s(
        "bearer token alone",
        "curl -H 'Bearer " + "9f8e7d6c5b4a39281706f5e4'",
        "9f8e7d6c5b4a39281706f5e4",
    ),
    _s(
        "Authorization: Basic",
        "Authorization: Basic " + "YWRtaW46aHVudGVyMjI=",
        "YWRtaW46aHVudGVyMjI=",
    ),
    _s("JSON password", '{"password": "hunter2' + 'hunter2"}', "hunter2hunter2"),
    _s(
        "JSON apiKey",
        '{"apiKey": "a8f5f167f44f49' + '64e6c998dee827110c"}',
        "a8f5f167f44f4964e6c998dee827110c",
    ),
    _s(
        "JSON client_secret",
        '{"client_secret": "Zq9xW3rT7y' + 'U1iO5pA2sD"}',
        "Zq9xW3rT7yU1iO5pA2sD",
    ),
    _s("DB_PASSWORD=", "DB_PASSWORD=s3cr3t" + "Passw0rd", "s3cr3tPassw0rd"),
    _s(
        "Django SECRET_KEY",
        "SECRET_KEY = 'django-insecure-" + "4x!k2@9f$z#p1q8w7e6r5'",
        "django-insecure-4x!k2@9f$z#p1q8w7e6r5",
    ),
    _s("token=", "token=9f8e7d6c5b4a" + "39281706f5e4d3c2b1a0", "9f8e7d6c5b4a39281706f5e4d3c2b1a0"),
    _s("password=", "password=hunter" + "22", "hunter22"),
    _s("passwd in YAML", "passwd: Tr0ub4" + "dor&3", "Tr0ub4dor&3"),
    _s("api_key assignment", "api_key: 0a1b2c3d" + "4e5f6a7b8c9d", "0a1b2c3d4e5f6a7b8c9d"),
    _s("postgres URL", "postgres://admin:Sup3r" + "S3cret@db.example.com:5432/app", "Sup3rS3cret"),
    _s("MySQL URL", "mysql://root:hunter2" + "pass@localhost/app", "hunter2pass"),
    _s(
        "MongoDB SRV URL", "mongodb+srv://app:Qw3rty" + "Uiop@cluster0.example.net/db", "Qw3rtyUiop"
    ),
    _s("Redis URL", "redis://:s3cr3t" + "redis@cache:6379/0", "s3cr3tredis"),
    _s("npm token", "npm_" + "1234567890abcdefghijABCDEFGHIJ123456"),
    _s("GitLab PAT", "glpat-" + "xY9zW8vU7tS6rQ5pO4nM"),
    _s(
        "SendGrid key", "SG." + "ngeVfQFYQlKU0ufo8x5d1A.TwL2iGABf9DHoTf-09kqeF8tAmbihYzrnopKc-1s5cr"
    ),
    _s(
        "Slack webhook",
        "https://hooks.slack.com/services/" + "T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX",
    ),
    _s("Slack bot token", "xoxb-" + "123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"),
    _s("Slack app token", "xapp-1-" + "A0123456789-1234567890123-abcdef0123456789"),
    _s("GitHub classic token", "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"),
    _s(
        "GitHub fine-grained token",
        "github_pat_" + "11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz",
    ),
    _s("OpenAI key", "sk-" + "abcdefghijklmnopqrstuvwxyz012345"),
    _s("OpenAI project key", "sk-proj-" + "AbCdEfGhIjKlMnOpQrStUvWx0123"),
    _s("Anthropic key", "sk-ant-api03-" + "AbCdEfGhIjKlMnOpQrStUvWx0123-_xyz"),
    _s("RSA private key", "-----BEGIN RSA " + "PRIVATE KEY-----"),
    _s("OpenSSH private key", "-----BEGIN OPENSSH " + "PRIVATE KEY-----"),
    _s("PGP private key", "-----BEGIN PGP " + "PRIVATE KEY BLOCK-----"),
    _s("Google OAuth client secret", "GOCSPX-" + "AbCdEfGhIjKlMnOpQrStUvWx1234"),
    _s("Twilio API key", "SK" + "0123456789abcdef0123456789abcdef"),
    _s("Mailchimp key", "0123456789abcdef" + "0123456789abcdef-us12"),
    _s("Telegram bot token", "123456789:AA" + "HdqTcvCH1vGWJxfSeofSAs0K5PALDsaw1"),
    _s("Shopify token", "shpat_" + "0123456789abcdef0123456789abcdef"),
    _s("Hugging Face token", "hf_" + "AbCdEfGhIjKlMnOpQrStUvWxYz01234567"),
    _s(
        "PyPI token",
        "pypi-AgEIcHlwaS5vcmc" + "CJDA0ZjU2ZWMtYTNhNi00Y2M4LWFmNzYtOGYwNGVhNmE4ZjE5AAI",
    ),
    _s("DigitalOcean token", "dop_v1_" + "0123456789abcdef" * 4),
    _s(
        "Discord webhook",
        "https://discord.com/api/webhooks/" + "123456789012345678/AbCdEfGhIjKlMnOpQrStUvWxYz_-0123",
    ),
    _s("HashiCorp Vault token", "hvs." + "CAESIJ0123456789abcdefGHIJKLmnop"),
    _s(
        "Azure storage key",
        "AccountKey=Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVE"
        + "rCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==",
    ),
    _s("Databricks token", "dapi" + "0123456789abcdef0123456789abcdef"),
    _s("Postman API key", "PMAK-" + "0123456789abcdef01234567-0123456789abcdef0123456789abcdef01"),
    _s(
        "age secret key",
        "AGE-SECRET-KEY-1" + "QQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQ",
    ),
    _s("Square token", "sq0atp-" + "AbCdEfGhIjKlMnOpQrStUv"),
    _s("Linear API key", "lin_api_" + "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789AbCd"),
]
FORMAT_IDS = [secret.name for secret in FORMATS]

CLEAN = [
    "read password=$DB_PASSWORD from the vault",
    "the token: string field is now required",
    "rotated the API key and the Stripe webhook secret",
    "password reset flow validates the token before use",
    "ENCRYPTION_KEY=/etc/backup/backup.key is read at start",
    "commit 3f2a9c1e8b7d6f5a4c3b2a1f0e9d8c7b6a5f4e3d reverted",
    "see https://github.com/example/shop/pull/42 for the review",
    "Bearer authentication replaced cookie sessions",
    "postgres://localhost/app in development | mysql in CI",
    "authToken = response.data.token; then refresh",
]


def _sentence(secret: Secret) -> str:
    return f"Deployed with {secret.text} in the config"


def _leaked(result: Result, secret: Secret) -> bool:
    return secret.core in result.stdout or secret.core in result.stderr


def _snapshot(project: Path) -> dict[str, bytes]:
    root = project / ".planning"
    if not root.exists():
        return {}
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def _store_commands(value: str) -> list[list[str]]:
    """One store per writer, the value in a different field of each."""
    outcome = ["store", "outcome", "--phase", "1", "--plan", "01-01", "--agent", "backend"]
    return [
        [*outcome, "--outcome", "success", "--summary", value],
        [*outcome, "--outcome", "success", "--summary", "fine", "--tags", value],
        [*outcome, "--outcome", value, "--summary", "fine"],
        ["store", "pattern", "--pattern", "p", "--context", value, "--reuse", "r"],
        ["store", "error", "--signature", "s", "--fix", value, "--agent", "a", "--resolved"],
        ["store", "preference", "--decision-point", "agent-selection", "--context", "c",
         "--proposed", "a", "--choice", value, "--signal", "positive", "--agent", "a"],
    ]  # fmt: skip


def _assert_refused(cli: CLI, project: Path, args: list[str], secret: Secret) -> None:
    before = _snapshot(project)
    result = cli("--today", "2026-05-01", "--branch", "main", *args, cwd=project)
    assert result.code == 2, (args, result)
    assert "secrets are never stored in memory" in result.stderr, (args, result.stderr)
    assert not _leaked(result, secret), (args, result)
    assert _snapshot(project) == before


@pytest.mark.parametrize("secret", FORMATS, ids=FORMAT_IDS)
def test_every_writer_refuses_every_format_in_every_field(
    cli: CLI, repo: Path, secret: Secret
) -> None:
    assert cli("init", cwd=repo).code == 0
    for args in _store_commands(_sentence(secret)):
        _assert_refused(cli, repo, args, secret)


def _disguises(secret: Secret) -> dict[str, str]:
    core, half = secret.core, len(secret.core) // 2
    split = {
        name: secret.text.replace(core, core[:half] + mark + core[half:])
        for name, mark in {
            "pipe": "|",
            "escaped pipe": "\\|",
            "br": "<br>",
            "zero-width space": "\u200b",
            "word joiner": "\u2060",
        }.items()
    }
    encoded = base64.b64encode(secret.text.encode()).decode()
    return {
        **split,
        "base64": encoded,
        "base64 url-safe": encoded.replace("+", "-").replace("/", "_"),
    }


@pytest.mark.parametrize("secret", FORMATS, ids=FORMAT_IDS)
def test_split_escaped_and_encoded_secrets_are_refused(
    cli: CLI, repo: Path, secret: Secret
) -> None:
    assert cli("init", cwd=repo).code == 0
    outcome = ["store", "outcome", "--phase", "1", "--plan", "01-01", "--agent", "backend"]
    for disguised in _disguises(secret).values():
        halves = Secret(secret.name, disguised, disguised.strip())
        _assert_refused(
            cli, repo, [*outcome, "--outcome", "success", "--summary", disguised], halves
        )
        _assert_refused(
            cli, repo, [*outcome, "--outcome", "success", "--summary", disguised], secret
        )


def _write(path: Path, text: str) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return str(path)


def _sources(project: Path, value: str) -> dict[str, list[str]]:
    """Every importer's source holding `value`, as the import arguments."""
    bullpen = {"namespaces": {"backend": [{"text": value, "type": "pattern", "id": "bp-1"}]}}
    fact = {"category": "pattern", "content": value, "id": "f-1"}
    event = {"event": "plan", "outcome": "success", "summary": value}
    broker = {"missions": [{"mission_id": "m-1", "goal": value, "completed_at": "2026-03-01"}]}
    learn = f"# Patterns\n\n## PAT-001: Deploy config\n- **Date**: 2026-03-04\n\n{value}\n"
    record: dict[str, object] = {
         "kind": "outcome", "id": "O-001", "date": "2026-03-02", "branch": "main", "phase": 1,
         "plan": "01-01", "agent": "a", "task_type": "general", "outcome": "success",
         "importance": 2, "tags": "", "summary": value}  # fmt: skip
    export = {"format": "legion-memory-export", "version": 1, "records": [record]}
    extra = {**export, "records": [{**record, "summary": "ok", "notes": value}]}
    return {
        "bullpen": ["bullpen", _write(project / "in/bullpen.json", json.dumps(bullpen))],
        "memory-system facts": ["memory-system", _sys(project / "in/sys1", "facts/f.json", fact)],
        "memory-system events": [
            "memory-system",
            _sys(project / "in/sys2", "events/e.jsonl", event),
        ],
        "memory-broker": ["memory-broker", _sys(project / "in/broker", "index.json", broker)],
        "learn": ["learn", _write(project / "in/learn/PATTERNS.md", learn)],
        "json": ["json", _write(project / "in/export.json", json.dumps(export))],
        "json extra column": ["json", _write(project / "in/extra.json", json.dumps(extra))],
    }


def _sys(directory: Path, name: str, data: object) -> str:
    _write(directory / name, json.dumps(data))
    return str(directory)


@pytest.mark.parametrize("secret", FORMATS, ids=FORMAT_IDS)
def test_every_importer_refuses_every_format(cli: CLI, repo: Path, secret: Secret) -> None:
    assert cli("init", cwd=repo).code == 0
    for name, args in _sources(repo, _sentence(secret)).items():
        before = _snapshot(repo)
        result = cli("--today", "2026-05-01", "import", *args, cwd=repo)
        assert result.code == 2, (name, result)
        assert "secrets are never stored in memory" in result.stderr, (name, result.stderr)
        assert not _leaked(result, secret), (name, result)
        assert _snapshot(repo) == before, name


@pytest.mark.parametrize("secret", FORMATS, ids=FORMAT_IDS)
def test_validate_reports_a_committed_secret_without_showing_it(
    cli: CLI, repo: Path, secret: Secret
) -> None:
    assert cli("init", cwd=repo).code == 0
    path = repo / MEMORY / "OUTCOMES.md"
    cell = secret.text.replace("|", "\\|")
    row = f"| O-001 | 2026-03-02 | main | 1 | 01-01 | a | general | success | 2 | t | {cell} |\n"
    path.write_text(path.read_text(encoding="utf-8") + row, encoding="utf-8")
    before = _snapshot(repo)
    for args in (["validate"], ["--json", "validate"], ["validate", str(path)]):
        result = cli(*args, cwd=repo)
        assert result.code == 1, result
        assert not _leaked(result, secret), result
        assert "Summary looks like it contains" in result.stdout, result.stdout
    assert _snapshot(repo) == before


def test_validate_reports_a_secret_in_a_learn_entry(cli: CLI, repo: Path) -> None:
    assert cli("init", cwd=repo).code == 0
    path = repo / MEMORY / "PATTERNS.md"
    secret = FORMATS[0]
    entry = f"\n## PAT-001: Deploy\n- **Date**: 2026-03-04\n\nUse {secret.text} for the bucket.\n"
    path.write_text(path.read_text(encoding="utf-8") + entry, encoding="utf-8")
    result = cli("validate", cwd=repo)
    assert result.code == 1
    assert not _leaked(result, secret)
    assert (
        ".planning/memory/PATTERNS.md:11: error: /legion:learn entry PAT-001 looks like it "
        "contains an AWS access key; secrets are never stored in memory (remove it from the "
        "file and rotate the credential)"
    ) in result.stdout


def test_a_value_failing_its_format_is_never_quoted_when_it_is_a_secret(
    cli: CLI, repo: Path
) -> None:
    key = FORMATS[0].text
    args = ["store", "outcome", "--phase", "1", "--plan", "01-01", "--agent", "a"]
    result = cli(*args, "--outcome", key, "--summary", "x", cwd=repo)
    assert result.code == 2
    assert result.stderr == (
        "Error: Outcome looks like it contains an AWS access key; secrets are never stored in "
        "memory (remove it and describe the change instead (e.g. 'rotated the API key'))\n"
    )


@pytest.mark.parametrize("text", CLEAN)
def test_ordinary_text_is_stored(cli: CLI, repo: Path, text: str) -> None:
    assert secret_kind(text) is None
    args = ["store", "outcome", "--phase", "1", "--plan", "01-01", "--agent", "a"]
    result = cli(
        "--today", "2026-05-01", *args, "--outcome", "success", "--summary", text, cwd=repo
    )
    assert result.code == 0, result


LEGION = REPO_ROOT.parent / "shared" / "legion"


def _legion_texts() -> list[tuple[str, str]]:
    """Every paragraph of Legion's SUMMARY, REVIEW and CHANGELOG files, as it would be stored."""
    texts = []
    for path in sorted(LEGION.rglob("*.md")):
        name = path.name.upper()
        if "node_modules" in path.parts:
            continue
        if "SUMMARY" in name or "REVIEW" in name or name.startswith("CHANGELOG"):
            text = path.read_text(encoding="utf-8", errors="replace")
            where = str(path.relative_to(LEGION))
            texts += [(where, part) for part in text.split("\n\n") if part.strip()]
    return texts


@pytest.mark.skipif(not LEGION.is_dir(), reason="the real Legion repository is not beside this one")
def test_real_legion_material_is_never_refused() -> None:
    texts = _legion_texts()
    assert len(texts) > 500  # the material is there: a glob that found nothing would pass
    refused = [(where, secret_kind(text)) for where, text in texts if secret_kind(text)]
    assert refused == []


@pytest.mark.skipif(not LEGION.is_dir(), reason="the real Legion repository is not beside this one")
def test_real_summaries_store_as_outcomes(cli: CLI, repo: Path) -> None:
    """Each SUMMARY's first paragraphs stored through the CLI: every store succeeds."""
    summaries = sorted(p for p in LEGION.rglob("*SUMMARY*.md") if "node_modules" not in p.parts)
    assert summaries
    args = ["store", "outcome", "--phase", "1", "--plan", "01-01", "--agent", "a"]
    for path in summaries[:25]:
        body = path.read_text(encoding="utf-8", errors="replace")[:2000].replace("|", "/")
        result = cli(
            "--today", "2026-05-01", *args, "--outcome", "success", "--summary", body, cwd=repo
        )
        assert result.code == 0, (path, result.stderr)
    kinds = KINDS["outcomes"]
    assert (repo / MEMORY / kinds.filename).read_text(encoding="utf-8").count("| O-0") == min(
        25, len(summaries)
    )


_TRICKY = st.sampled_from(
    ["a", "Z", "9", " ", "|", "\\|", "<br>", "\n", "\r", "\0", "\u200b", "\u00ad", "\uff47", "é",
     "e\u0301", "\u0301", "\ufb01", "\u2014", "가", "\u1100", "\u1161", "\u11a8", "ghp_", "x" * 16]
)  # fmt: skip


@settings(max_examples=500, deadline=None)
@given(st.lists(st.lists(_TRICKY, max_size=6).map("".join), max_size=8))
def test_the_variants_of_many_values_at_once_are_each_value_s_own(values: list[str]) -> None:
    """Folding the values joined by NULs folds each as it folds alone (combining marks,
    Hangul jamo and compatibility forms at their edges included)."""
    assert secret_variants_of(values) == [list(secret_variants(value)) for value in values]
