"""Credentials of known formats, as data: one row per issuer (pure).

Each pattern matches a whole token (the detector splits values at separators), so a
token is found anywhere in a string: in a URL's path, after `Bearer `, inside JSON.
Shapes that span separators (PEM blocks, bot tokens with a colon, webhook URLs) are
searched in the whole string instead. Lengths follow each issuer's documented format,
a little looser where formats have grown.
"""

from __future__ import annotations

# (kind, what every match starts with, pattern) as text. A token is matched only
# against the rows whose prefix it has, and a row's pattern is compiled (and cached by
# `re`) the first time a token has its prefix: a clean config compiles none of them.
KNOWN: tuple[tuple[str, tuple[str, ...], str], ...] = (
    ("GitHub token", ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"), r"gh[pousr]_[A-Za-z0-9]{20,}"),
    ("GitHub token", ("github_pat_",), r"github_pat_[A-Za-z0-9_]{22,}"),
    ("Anthropic API key", ("sk-ant-",), r"sk-ant-[A-Za-z0-9_-]{20,}"),
    ("API key (sk-)", ("sk-",), r"sk-[A-Za-z0-9_-]{20,}"),
    # Clerk's secret keys share Stripe's prefixes; the shape cannot tell them apart.
    ("Stripe or Clerk secret key", ("sk_live_", "sk_test_", "rk_live_", "rk_test_"),
     r"[sr]k_(?:live|test)_[A-Za-z0-9]{16,}"),
    ("Slack token", ("xox",), r"xox[abpors]-[A-Za-z0-9-]{10,}"),
    ("Slack token", ("xapp-",), r"xapp-[A-Za-z0-9-]{10,}"),
    ("AWS access key", ("AKIA", "ASIA"), r"(?:AKIA|ASIA)[A-Z0-9]{16}"),
    ("GitLab token", ("glpat-", "gldt-", "glrt-", "glptt-", "glft-", "glcbt-"),
     r"gl(?:pat|dt|rt|ptt|ft|cbt)-[A-Za-z0-9_-]{20,}"),
    ("Google API key", ("AIza",), r"AIza[A-Za-z0-9_-]{35}"),
    ("JSON web token", ("eyJ",), r"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*"),
    ("npm token", ("npm_",), r"npm_[A-Za-z0-9]{36}"),
    ("PyPI token", ("pypi-AgE",), r"pypi-AgE[A-Za-z0-9_-]{50,}"),
    ("Hugging Face token", ("hf_",), r"hf_[A-Za-z0-9]{30,}"),
    ("DigitalOcean token", ("doo_v1_", "dop_v1_", "dor_v1_"), r"do[opr]_v1_[a-f0-9]{64}"),
    ("Shopify token", ("shpat_", "shpss_", "shpca_", "shppa_"),
     r"shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}"),
    ("SendGrid key", ("SG.",), r"SG\.[A-Za-z0-9_-]{16,32}\.[A-Za-z0-9_-]{30,50}"),
    ("Twilio key", ("SK",), r"SK[0-9a-f]{32}"),
    ("Linear key", ("lin_api_", "lin_oauth_"), r"lin_(?:api|oauth)_[A-Za-z0-9]{32,}"),
    ("Notion token", ("secret_", "ntn_"), r"(?:secret|ntn)_[A-Za-z0-9]{40,}"),
    ("Neon key", ("napi_",), r"napi_[A-Za-z0-9]{32,}"),
    ("Perplexity key", ("pplx-",), r"pplx-[A-Za-z0-9]{32,}"),
    ("Groq key", ("gsk_",), r"gsk_[A-Za-z0-9]{40,}"),
    ("Replicate token", ("r8_",), r"r8_[A-Za-z0-9]{30,}"),
    ("Atlassian token", ("ATATT",), r"ATATT[A-Za-z0-9_=-]{40,}"),
    ("Postman key", ("PMAK-",), r"PMAK-[a-f0-9]{24}-[a-f0-9]{34}"),
    ("Databricks token", ("dapi",), r"dapi[a-f0-9]{32}(?:-\d)?"),
    ("Doppler token", ("dp.",), r"dp\.(?:st|ct|sa|scim|audit|pt)\.[A-Za-z0-9_.-]{30,}"),
    ("Supabase token", ("sbp_",), r"sbp_[a-f0-9]{40}"),
    ("Grafana token", ("glsa_", "glc_"), r"gl(?:sa|c)_[A-Za-z0-9_+-]{32,}={0,2}"),
    # Organisation tokens are `sntrys_`, user tokens `sntryu_`.
    ("Sentry token", ("sntrys_", "sntryu_"), r"sntry[su]_[A-Za-z0-9_+-]{40,}={0,2}"),
    ("New Relic key", ("NRAK-",), r"NRAK-[A-Z0-9]{27}"),
    ("Figma token", ("figd_",), r"figd_[A-Za-z0-9_-]{32,}"),
    ("Mailgun key", ("key-",), r"key-[a-f0-9]{32}"),
    ("Tavily key", ("tvly-",), r"tvly-[A-Za-z0-9-]{24,}"),
    ("Firecrawl key", ("fc-",), r"fc-[a-f0-9]{32}"),
)
# One C-level test of most tokens instead of one per pattern (a 1 MB config has ~100k).
PREFIXES = tuple(prefix for _, prefixes, _ in KNOWN for prefix in prefixes)
SHORTEST_KNOWN = 15  # `xoxb-` and ten more characters

# (kind, a substring every match holds, so most strings skip the search, pattern),
# each pattern compiled the first time a string holds its substring.
SEARCHED: tuple[tuple[str, str, str], ...] = (
    ("private key", "-----BEGIN", r"-----BEGIN [A-Z0-9 ]{0,30}PRIVATE KEY( BLOCK)?-----"),
    ("Telegram bot token", ":AA",
     r"(?<![0-9])[0-9]{8,10}:AA[A-Za-z0-9_-]{33}(?![A-Za-z0-9_-])"),
    ("Slack webhook", "hooks.slack.com",
     r"hooks\.slack\.com/(?:services|workflows)/[A-Za-z0-9/_-]{20,}"),
    ("Discord webhook", "/api/webhooks/",
     r"discord(?:app)?\.com/api/webhooks/[0-9]{5,30}/[A-Za-z0-9_-]{20,}"),
)
