"""Credentials of known formats, as data: one row per issuer (pure).

Each pattern matches a whole token (the detector splits values at separators), so a
token is found anywhere in a string: in a URL's path, after `Bearer `, inside JSON.
Shapes that span separators (PEM blocks, bot tokens with a colon, webhook URLs) are
searched in the whole string instead. Lengths follow each issuer's documented format,
a little looser where formats have grown.
"""

from __future__ import annotations

import re

# (kind, pattern) as text: only ANY_KNOWN is compiled up front; the one pattern that
# names a match's kind is compiled (and cached by `re`) when a token matches it.
KNOWN: tuple[tuple[str, str], ...] = (
    ("GitHub token", r"gh[pousr]_[A-Za-z0-9]{20,}"),
    ("GitHub token", r"github_pat_[A-Za-z0-9_]{22,}"),
    ("Anthropic API key", r"sk-ant-[A-Za-z0-9_-]{20,}"),
    ("API key (sk-)", r"sk-[A-Za-z0-9_-]{20,}"),
    ("Stripe key", r"[sr]k_(?:live|test)_[A-Za-z0-9]{16,}"),
    ("Slack token", r"xox[abpors]-[A-Za-z0-9-]{10,}"),
    ("Slack token", r"xapp-[A-Za-z0-9-]{10,}"),
    ("AWS access key", r"(?:AKIA|ASIA)[A-Z0-9]{16}"),
    ("GitLab token", r"gl(?:pat|dt|rt|ptt|ft|cbt)-[A-Za-z0-9_-]{20,}"),
    ("Google API key", r"AIza[A-Za-z0-9_-]{35}"),
    ("JSON web token", r"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*"),
    ("npm token", r"npm_[A-Za-z0-9]{36}"),
    ("PyPI token", r"pypi-AgE[A-Za-z0-9_-]{50,}"),
    ("Hugging Face token", r"hf_[A-Za-z0-9]{30,}"),
    ("DigitalOcean token", r"do[opr]_v1_[a-f0-9]{64}"),
    ("Shopify token", r"shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}"),
    ("SendGrid key", r"SG\.[A-Za-z0-9_-]{16,32}\.[A-Za-z0-9_-]{30,50}"),
    ("Twilio key", r"SK[0-9a-f]{32}"),
    ("Linear key", r"lin_(?:api|oauth)_[A-Za-z0-9]{32,}"),
    ("Notion token", r"(?:secret|ntn)_[A-Za-z0-9]{40,}"),
    ("Neon key", r"napi_[A-Za-z0-9]{32,}"),
    ("Perplexity key", r"pplx-[A-Za-z0-9]{32,}"),
    ("Groq key", r"gsk_[A-Za-z0-9]{40,}"),
    ("Replicate token", r"r8_[A-Za-z0-9]{30,}"),
    ("Atlassian token", r"ATATT[A-Za-z0-9_=-]{40,}"),
    ("Postman key", r"PMAK-[a-f0-9]{24}-[a-f0-9]{34}"),
    ("Databricks token", r"dapi[a-f0-9]{32}(?:-\d)?"),
    ("Doppler token", r"dp\.(?:st|ct|sa|scim|audit|pt)\.[A-Za-z0-9_.-]{30,}"),
    ("Supabase token", r"sbp_[a-f0-9]{40}"),
    ("Grafana token", r"gl(?:sa|c)_[A-Za-z0-9_+-]{32,}={0,2}"),
    ("Sentry token", r"sntr[ysu]_[A-Za-z0-9_+-]{40,}={0,2}"),
    ("New Relic key", r"NRAK-[A-Z0-9]{27}"),
    ("Figma token", r"figd_[A-Za-z0-9_-]{32,}"),
    ("Mailgun key", r"key-[a-f0-9]{32}"),
    ("Tavily key", r"tvly-[A-Za-z0-9-]{24,}"),
    ("Firecrawl key", r"fc-[a-f0-9]{32}"),
)
# One pass over most tokens instead of one per pattern (a 1 MB config has ~100k strings).
ANY_KNOWN = re.compile("|".join(f"(?:{pattern})" for _, pattern in KNOWN))
SHORTEST_KNOWN = 15  # `xoxb-` and ten more characters

# (kind, a substring every match holds, so most strings skip the search, pattern)
SEARCHED: tuple[tuple[str, str, re.Pattern[str]], ...] = (
    ("private key", "-----BEGIN",
     re.compile(r"-----BEGIN [A-Z0-9 ]{0,30}PRIVATE KEY( BLOCK)?-----")),
    ("Telegram bot token", ":AA",
     re.compile(r"(?<![0-9])[0-9]{8,10}:AA[A-Za-z0-9_-]{33}(?![A-Za-z0-9_-])")),
    ("Slack webhook", "hooks.slack.com",
     re.compile(r"hooks\.slack\.com/(?:services|workflows)/[A-Za-z0-9/_-]{20,}")),
    ("Discord webhook", "/api/webhooks/",
     re.compile(r"discord(?:app)?\.com/api/webhooks/[0-9]{5,30}/[A-Za-z0-9_-]{20,}")),
)
