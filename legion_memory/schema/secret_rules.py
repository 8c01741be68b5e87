"""The credential formats memory refuses: one (kind, pattern) rule per format real scanners know.

The formats follow the providers' documented token shapes, as gitleaks and detect-secrets encode
them (see docs/decisions.md#secret-detector). Patterns, not compiled regexes: a rule is compiled
only when the prefilter says a value could hold a secret and the value holds one of the rule's
anchors, so clean text never pays for them.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing's: docs/decisions.md#hot-paths-without-typing
if TYPE_CHECKING:
    from typing import Final


# Characters a token is made of; a credential is a run of them.
TOKEN_CHARS: Final = r"A-Za-z0-9_+/=.~-"

# Anything a rule below can match contains one of these words (in any case: the keywords of the
# generic rules, a URL scheme, a PEM armour line) or a run of 16 token characters (every provider
# format is longer). Words are found by substring search of the lowercased text, many times
# faster than one case-insensitive alternation.
PREFILTER_WORDS: Final = (
    *("pass", "pwd", "secret", "token", "key", "auth", "bearer", "cred", "://", "-----begin"),
)
PREFILTER_RUN: Final = r"[A-Za-z0-9_+/=.-]{16}"
# The characters of its class, listed: the detector marks them with `str.translate` instead of
# compiling the pattern (tests/test_secrets.py holds the two equal).
RUN_CHARACTERS: Final = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_+/=.-"

# A reference ($DB_PASSWORD, ${TOKEN}, <password>, %s), a placeholder or a file path is no secret.
_NOT_A_REFERENCE = r"(?![$<{%*/]|\.\.?/|~/|\[?(?i:redacted)|(?i:x){4,}|\.{3})"
_KEYWORD = (
    r"(?i:(?:[a-z0-9]+[_.-])*"
    r"(?:pass(?:word|wd|phrase)|pwd|secret|api[_. -]?key|access[_.-]?key|account[_.-]?key"
    r"|(?:access|auth|refresh|bot|api|session)[_.-]?token|token|client[_.-]?secret"
    r"|private[_.-]?key|credentials?|signing[_.-]?key|encryption[_.-]?key|master[_.-]?key)"
    r"(?:[_.-](?:key|id|value|access[_.-]?key|token))?)"
)
# A value worth refusing: six or more characters with a digit or a symbol, so that prose
# ("password: reset"), type names ("token: string") and code ("token = response.token") pass.
_VALUE_CHAR = r"[^\s\"'`,;()\[\]]"
_ASSIGNED_VALUE = rf"(?={_VALUE_CHAR}{{6}})(?={_VALUE_CHAR}*[\d!@#$%^&*+/=~]){_VALUE_CHAR}{{6,}}"

RULES: Final[tuple[tuple[str, str], ...]] = (
    ("private key", r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----"),
    ("AWS access key", r"\b(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA)[A-Z0-9]{16}\b"),
    (
        "AWS secret access key",
        r"(?<![A-Za-z0-9+/=])(?=[A-Za-z0-9+/]{0,39}[A-Z])(?=[A-Za-z0-9+/]{0,39}[a-z])"
        r"(?=[A-Za-z0-9+/]{0,39}[0-9])[A-Za-z0-9+/]{40}(?![A-Za-z0-9+/=])",
    ),
    ("GitHub token", r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})"),
    ("GitLab token", r"\bgl(?:pat|dt|ptt|rt|soat|ft|cbt|imt|oas)-[A-Za-z0-9_-]{20,}"),
    ("Slack token", r"\b(?:xox[abposre]-[A-Za-z0-9-]{10,}|xapp-\d-[A-Za-z0-9-]{10,})"),
    (
        "Slack webhook",
        r"hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_]{6,}/[A-Za-z0-9_/]{8,}",
    ),
    ("Discord webhook", r"discord(?:app)?\.com/api/webhooks/\d{5,}/[A-Za-z0-9_-]{20,}"),
    ("Stripe key", r"\b(?:sk|rk|pk)_(?:live|test|prod)_[A-Za-z0-9]{10,}"),
    ("OpenAI or Anthropic API key", r"\bsk-(?:proj-|ant-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}"),
    ("Google API key", r"\bAIza[0-9A-Za-z_-]{35}"),
    ("Google OAuth secret", r"\b(?:GOCSPX-[A-Za-z0-9_-]{20,}|ya29\.[0-9A-Za-z_-]{20,})"),
    (
        "JSON Web Token",
        r"\beyJ[A-Za-z0-9_-]{8,}={0,2}\.[A-Za-z0-9_-]{8,}={0,2}\.[A-Za-z0-9_-]{8,}",
    ),
    ("npm token", r"\bnpm_[A-Za-z0-9]{36}\b"),
    ("PyPI token", r"\bpypi-AgE[A-Za-z0-9_-]{50,}"),
    ("SendGrid key", r"\bSG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}"),
    ("Twilio key", r"\bSK[0-9a-fA-F]{32}\b"),
    ("Mailchimp key", r"\b[0-9a-f]{32}-us\d{1,2}\b"),
    ("Mailgun key", r"\bkey-[0-9a-f]{32}\b"),
    ("Telegram bot token", r"\b\d{8,10}:AA[0-9A-Za-z_-]{33}\b"),
    ("Shopify token", r"\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b"),
    ("Hugging Face token", r"\bhf_[A-Za-z0-9]{34,}\b"),
    ("DigitalOcean token", r"\bdo[opr]_v1_[a-f0-9]{64}\b"),
    ("Square token", r"\bsq0(?:atp|csp)-[0-9A-Za-z_-]{22,}"),
    ("Databricks token", r"\bdapi[a-f0-9]{32}\b"),
    ("Doppler token", r"\bdp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,}"),
    ("Linear API key", r"\blin_api_[A-Za-z0-9]{40}\b"),
    ("Postman API key", r"\bPMAK-[a-f0-9]{24}-[a-f0-9]{34}\b"),
    ("HashiCorp Vault token", r"\bhv[sbr]\.[A-Za-z0-9_-]{24,}"),
    ("Grafana token", r"\b(?:glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}|glc_[A-Za-z0-9+/]{32,}={0,2})"),
    ("New Relic key", r"\bNR(?:AK|II|JS)-[A-Za-z0-9]{19,}"),
    ("Atlassian API token", r"\bATATT3[A-Za-z0-9_=-]{40,}"),
    ("age secret key", r"\bAGE-SECRET-KEY-1[0-9A-Z]{58}\b"),
    ("Facebook access token", r"\bEAA[A-Za-z0-9]{8,}ZD\b|\bEAACEdEose0cBA[0-9A-Za-z]+"),
    ("Azure storage key", r"(?i)AccountKey=[A-Za-z0-9+/]{40,}={0,2}"),
    (
        "password in a URL",
        rf"(?i)\b[a-z][a-z0-9+.-]{{1,20}}://[^\s/:@\"'<>]*:{_NOT_A_REFERENCE}[^\s/@\"'<>]{{3,}}@",
    ),
    (
        "Authorization header",
        r"(?i)\bauthorization\s*[:=]\s*[\"']?(?:bearer|basic|token|bot|digest)\s+[A-Za-z0-9._~+/-]{8,}",
    ),
    ("bearer token", r"(?i)\bbearer\s+(?=[A-Za-z._~+/-]*\d)[A-Za-z0-9._~+/-]{16,}"),
    (
        "password or API key assignment",
        rf"(?<![A-Za-z0-9]){_KEYWORD}[\"']?\s*(?::=|=>|==|[:=])\s*[\"'`]?"
        rf"{_NOT_A_REFERENCE}{_ASSIGNED_VALUE}",
    ),
)

# Anchors: for each rule, literals of which every match of the rule holds at least one, as the
# rule spells them (a rule compiles only for a value that holds one of its anchors; see
# docs/decisions.md#secret-rule-anchors). ANCHORS are searched in the value as it is;
# FOLDED_ANCHORS, of the rules that ignore case, in the value folded as `(?i)` matches it.
# A rule in neither (a bare AWS secret key has no literal) runs whenever the prefilter passes
# and the value holds the run of characters its every match is made of (RUNS).
ANCHORS: Final[dict[str, tuple[str, ...]]] = {
    "private key": ("-----BEGIN ",),
    "AWS access key": ("A3T", "AKIA", "ASIA", "ABIA", "ACCA", "AGPA", "AIDA", "AROA"),
    "GitHub token": ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
    "GitLab token": tuple(f"gl{code}-" for code in
                          ("pat", "dt", "ptt", "rt", "soat", "ft", "cbt", "imt", "oas")),
    "Slack token": ("xox", "xapp-"),
    "Slack webhook": ("hooks.slack.com/",),
    "Discord webhook": (".com/api/webhooks/",),
    "Stripe key": ("_live_", "_test_", "_prod_"),
    "OpenAI or Anthropic API key": ("sk-",),
    "Google API key": ("AIza",),
    "Google OAuth secret": ("GOCSPX-", "ya29."),
    "JSON Web Token": ("eyJ",),
    "npm token": ("npm_",),
    "PyPI token": ("pypi-AgE",),
    "SendGrid key": ("SG.",),
    "Twilio key": ("SK",),
    "Mailchimp key": ("-us",),
    "Mailgun key": ("key-",),
    "Telegram bot token": (":AA",),
    "Shopify token": ("shpat_", "shpca_", "shppa_", "shpss_"),
    "Hugging Face token": ("hf_",),
    "DigitalOcean token": ("_v1_",),
    "Square token": ("sq0atp-", "sq0csp-"),
    "Databricks token": ("dapi",),
    "Doppler token": ("dp.",),
    "Linear API key": ("lin_api_",),
    "Postman API key": ("PMAK-",),
    "HashiCorp Vault token": ("hvs.", "hvb.", "hvr."),
    "Grafana token": ("glsa_", "glc_"),
    "New Relic key": ("NRAK-", "NRII-", "NRJS-"),
    "Atlassian API token": ("ATATT3",),
    "age secret key": ("AGE-SECRET-KEY-1",),
    "Facebook access token": ("EAA",),
}  # fmt: skip
RUNS: Final[dict[str, tuple[str, int]]] = {
    "AWS secret access key": (
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/",
        40,
    ),
}
FOLDED_ANCHORS: Final[dict[str, tuple[str, ...]]] = {
    "Azure storage key": ("accountkey=",),
    "password in a URL": ("://",),
    "Authorization header": ("authorization",),
    "bearer token": ("bearer",),
    "password or API key assignment": ("pass", "pwd", "secret", "key", "token", "credential"),
}
# The characters besides A-Z that `(?i)` matches to an ASCII letter: the dotted and dotless i,
# the long s and the Kelvin sign (tests/test_secret_anchors.py holds this list complete).
CASE_ALIASES: Final = {"\u0130": "i", "\u0131": "i", "\u017f": "s", "\u212a": "k"}
