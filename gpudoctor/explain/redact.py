"""Secret-looking values in the lines explain quotes back are replaced with REDACTED (red team 2026-11-26g,
docs/security.md 26.).

explain quotes the lines it reads (the matched line, a setting's line, a launch line) in the text and JSON answers,
which users paste into issues and CI keeps as artifacts. The lines the settings reader picks are env dumps, exports
and command lines: where tokens live (`export HF_TOKEN=hf_... CUDA_LAUNCH_BLOCKING=1`). The project's rule for
environment values (collector/system.py, docs/security.md 10. and 22.) is that a secret-looking value never leaves
in clear; here the same rule is applied to every string of the answer once, at its end (apply()), so no reader of
this session or later can quote one:

- the value of an assignment whose name reads as a secret (`NAME=V`, `NAME: V`, `"name": "v"`, `--name V`,
  `--name=V`, `os.environ['NAME'] = 'V'`): the name's last word (split at `_`, `-`, `.`) is a token, secret,
  password, passwd, passphrase, apikey, credential(s), pass, auth, jwt or bearer, or `key` after another word
  (WANDB_API_KEY, AWS_SECRET_ACCESS_KEY); a tokenizer's special tokens (pad_token, eos_token ...) are not secrets;
- a value that has the shape of a known credential whatever its name: Hugging Face `hf_...`, AWS access key ids
  `AKIA...`, GitHub `ghp_` / `gho_` / `ghu_` / `ghs_` / `ghr_` / `github_pat_`, GitLab `glpat-`, Slack `xox?-`,
  OpenAI-style `sk-...`, a JWT (`eyJ...` three parts), `Bearer X`, and the password of a URL's userinfo
  (`https://user:pass@host`, RFC 3986 section 3.2.1 deprecates it for this reason).

REDACTED is a plain word: a redacted line pasted into a shell stays inert (no redirection, glob or expansion).
Placeholders (`$HF_TOKEN`, `<token>`, `...`, `xxx`) and booleans are kept. Every regex is bounded and linear; a
string is searched only when a cheap lower-case substring test finds a needle.
"""

import re

MARK = "REDACTED"
MAX_STRING = 65536  # longer strings are cut by the renderers anyway; past this only the shapes are searched

# ('sshpass': sshpass -e reads the password from $SSHPASS, sshpass(1); red team 2026-11-28e)
_LAST = {"token", "secret", "password", "passwd", "passphrase", "apikey", "credential", "credentials", "pass",
         "auth", "jwt", "bearer", "secretkey", "accesskey", "privatekey", "accesstoken", "authtoken", "pwd", "sshpass",
         # keytool's -storepass / -keypass and their -src / -dest forms (keytool(1); red team 2026-11-28h, 97.)
         "storepass", "keypass", "srcstorepass", "deststorepass", "srckeypass", "destkeypass"}
_NAME_NEEDLES = ("token", "secret", "pass", "key", "cred", "auth", "jwt", "bearer", "pwd")
_SPECIAL = {"pad", "eos", "bos", "unk", "sep", "cls", "mask", "special", "additional", "max", "num", "new"}
_NEEDLES = ("token", "secret", "pass", "key", "cred", "auth", "jwt", "bearer", "pwd", "hf_", "akia", "gh", "glpat",
            "xox", "sk-", "eyj", "://", "mysql", "mariadb", "login", "curl", "aiza", "hooks.slack", "webhook",
            "telegram.org/", "/hook/", "/hooks/", "sudo", "kinit", "redis-cli", "ldap", "smb", "rpcclient", "mongo",
            "zip", "7z", "openssl", "rar", "hvs.", "hvb.", "hvr.", "sqlcmd", "bcp", "osql")

# a name, its operator, its value (a quoted string or a run up to a separator); the name is read whole from a
# non-word character so that no split of it is tried twice
# (no span replaced holds a quote or a backslash other than its own delimiters, which are written back: a line that
# was quoted for a shell (fixline.sh) keeps its quoting after the value is replaced)
_VALUE = r"""(?:"[^"'`\\\n]{0,512}"|'[^'"`\\\n]{0,512}'|`[^`'"\\\n]{0,512}`|[^\s"'`\\,;})\]]{1,512})"""
_ASSIGN = re.compile(
    r"""(?<![\w.-])(?P<q>["']?)(?P<name>[A-Za-z_][\w.-]{0,80})(?P=q)(?P<op>\]?[ \t]{0,4}(?:=|:)[ \t]{0,4})""")
_VALUE_RX = re.compile(_VALUE)
# (a blank-separated value never starts with '-': that is the next flag, read as a name of its own; a bare switch
# before a secret's flag, '--bf16 --password X', took '--password' as its value and hid it, red team 2026-11-27b)
# (a dotted flag is one name, read by its last part: LightningCLI / jsonargparse's '--trainer.logger.init_args.api_key
# X', https://lightning.ai/docs/pytorch/stable/cli/lightning_cli_advanced_3.html; it stopped at the first '.' and the
# key was kept in clear, review22)
# (a here-string after a credential's flag is what it reads: `gh auth login --with-token <<< X` hid '<<<' as the value
# and left X in clear; the here-string's word is the value, mutation round 24)
_FLAG = re.compile(r"(?<![\w-])(?P<name>--?[A-Za-z][\w.-]{0,80})(?P<op>=|[ \t]{1,4}(?:<<<[ \t]{0,4})?(?!-))")
_SHAPES = re.compile(
    r"(?<![A-Za-z0-9_])(?:hf_[A-Za-z0-9]{30,80}|AKIA[0-9A-Z]{16}|gh[opusr]_[A-Za-z0-9]{30,80}"
    r"|github_pat_[A-Za-z0-9_]{22,120}|glpat-[A-Za-z0-9_-]{20,80}|xox[abprs]-[A-Za-z0-9-]{10,120}"
    r"|sk-[A-Za-z0-9_-]{20,160}|eyJ[A-Za-z0-9_-]{8,2000}\.eyJ[A-Za-z0-9_-]{8,4000}\.[A-Za-z0-9_-]{0,2000}"
    # a Google API key: 'AIza' and 35 more (https://cloud.google.com/docs/authentication/api-keys; red team 2026-11-28e)
    r"|AIza[0-9A-Za-z_-]{35}"
    # a HashiCorp Vault token: 'hvs.' (service), 'hvb.' (batch), 'hvr.' (recovery) and its random part
    # (https://developer.hashicorp.com/vault/docs/concepts/tokens#token-prefixes; red team 2026-11-29, 114.)
    r"|hv[sbr]\.[A-Za-z0-9_-]{20,400})"
    r"(?![A-Za-z0-9_])")
# a URL whose path is its credential: anyone who holds it can post (red team 2026-11-28e, docs/security.md 81.);
# the services and forms read, with their sources, are listed at gpudoctor/collector/base.py WEBHOOK_PATH_RE, whose
# text this is (explain imports no collector module; tests/test_review26.py keeps the two equal): Slack's
# hooks.slack.com/services/..., Discord's /api/webhooks/ID/TOKEN and discord.py's /api/v10/webhooks/...,
# Teams' *.webhook.office.com/webhookb2/... and legacy outlook.office.com/webhook/..., a Telegram bot's
# api.telegram.org/bot<token>/... and /file/bot<token>/..., a Feishu/Lark bot's /open-apis/bot/v2/hook/<token>,
# Mattermost's /hooks/<26-character id>: a notification callback prints it in its HTTPError
_PATH_SECRET = re.compile(r"(?i)(hooks\.slack\.com/(?:services|workflows|triggers)/|discord(?:app)?\.com/api/"
                          r"(?:v\d{1,2}/)?webhooks/|\.webhook\.office\.com/webhook(?:b2)?/|outlook\.office(?:365)?\.com"
                          r"/webhook/|api\.telegram\.org/(?:file/)?bot"
                          r"|open\.(?:feishu\.cn|larksuite\.com)/open-apis/bot/v2/hook/"
                          r"|/hooks/(?=[a-z0-9]{26}(?:[^a-z0-9]|$)))[^\s'\"`<>\\]{4,1024}")
_WEBHOOK_NEEDLES = ("hooks.slack", "webhook", "telegram.org/", "/hook/", "/hooks/")
# netrc(5)'s 'password' token: 'machine H login U password P' on one line (wandb login and huggingface-cli write
# ~/.netrc; `cat ~/.netrc` in a paste), or alone at its line's end when the entry spans lines. netrc's tokens come
# in any order and 'login' may be absent (review26): 'machine H password P', '... account A password P',
# 'default password P' (netrc(5): machine, default, login, password, account, macdef)
_NETRC = re.compile(r"(?<![\w-])(?:login|account|machine)[ \t]{1,8}[^\s]{1,256}[ \t]{1,8}password[ \t]{1,8}"
                    r"(?P<v>[^\s]{1,512})|(?<![\w-])default[ \t]{1,8}password[ \t]{1,8}(?P<d>[^\s]{1,512})"
                    r"|^[ \t]{0,40}password[ \t]{1,8}(?P<w>[^\s]{1,512})[ \t]{0,8}$", re.M)


def _netrc(m):
    g = next(k for k in ("v", "d", "w") if m.group(k) is not None)
    v = m.group(g)
    if _PLACEHOLDER.match(v) or v.lower().rstrip(".:!") in _PROSE:
        return m.group(0)
    return m.group(0)[:m.start(g) - m.start()] + MARK + m.group(0)[m.end(g) - m.start():]


# a credential's shape or a URL's password cut short where a reader clipped the line (' ...', ' [...]', '\u2026'):
# the whole-shape passes above need the whole value (red team 2026-11-27b); a cut value holds a digit or a capital
# (a token's random part: 'hf_transfer', a package, is no token)
_CUT = r"""(?=["'`)]{0,2}(?:[ \t]?\.\.\.|\u2026|[ \t]\[\.\.\.\]|$))"""
_MIXED = r"(?=[a-z_-]{0,40}[A-Z0-9])"
_PARTIAL = re.compile(
    r"(?<![A-Za-z0-9_])(?:hf_" + _MIXED + r"[A-Za-z0-9]{6,80}|AKIA[0-9A-Z]{4,16}|gh[opusr]_" + _MIXED +
    r"[A-Za-z0-9]{6,80}|github_pat_[A-Za-z0-9_]{6,120}|glpat-[A-Za-z0-9_-]{6,80}|xox[abprs]-[A-Za-z0-9-]{6,120}"
    r"|sk-" + _MIXED + r"[A-Za-z0-9_-]{6,160}|eyJ[A-Za-z0-9_-]{6,4000}(?:\.[A-Za-z0-9_-]{0,4000}){0,2})" + _CUT)
_PARTIAL_USERINFO = re.compile(r"(://[^\s:/@<>]{0,128}:)(?!\d{1,5}(?:[/\s]|\.\.\.))[^\s/@'\"`\\<>]{1,256}?"
                               r"(?=[\"'`)]{0,2}(?:[ \t]?\.\.\.|\u2026|[ \t]\[\.\.\.\]))")  # (a clip mark: 'docker://h:tag' is no cut)
_BEARER = re.compile(r"(?i)(?<![\w-])(Bearer|Basic)\s{1,4}[A-Za-z0-9._~+/=-]{8,4000}")
# (the user may be empty: Redis' `redis://:PASSWORD@host:6379/0`, https://redis-py.readthedocs.io/en/stable/connections.html
# from_url; red team 2026-11-28d, docs/security.md 76.)
_USERINFO = re.compile(r"(://[^\s:/@]{0,128}:)[^\s/@'\"`\\]{1,256}@")
# a URL's query parameter (red team 2026-11-26h, docs/security.md 29.): the _ASSIGN pass reads 'https' ':' and the rest of
# the URL as one value, so '?access_token=...' after it was never read as a name; the query's signatures too (Azure
# SAS 'sig', S3 / GCS presigned 'X-Amz-Signature', 'X-Amz-Security-Token', 'X-Goog-Signature': learn.microsoft.com
# /azure/storage/common/storage-sas-overview, docs.aws.amazon.com/AmazonS3/latest/API/sigv4-query-string-auth.html)
_QUERY = re.compile(r"(?<=[?&;])(?P<name>[A-Za-z_][\w.-]{0,80})=(?P<value>[^\s&#'\"`\\]{1,2048})")
_QUERY_SECRET = {"sig", "signature", "x-amz-signature", "x-amz-security-token", "x-amz-credential", "x-goog-signature",
                 "x-goog-credential", "code", "key"}
# a PEM private key's body on the line of its header (RFC 7468 section 2; a JSON service-account file writes the
# key with '\n' escapes: cloud.google.com/iam/docs/keys-create-delete)
_PEM = re.compile(r"(-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY-----)(?:\\n|[ \t]){0,4}[A-Za-z0-9+/=]{8,4096}"
                  r"(?:(?:\\n|[ \t]){1,4}[A-Za-z0-9+/=]{1,4096}){0,400}")
# a password given as a command's own operand, where no name says so (red team 2026-11-28d, docs/security.md 76.):
# mysql's `-pPASSWORD` glued (mysql(1): "--password[=password], -p[password] ... no space between the option and the
# password"; `-p NAME` is a database name, not read), sshpass's `-p PASSWORD` (sshpass(1)), a registry login's `-p
# PASSWORD` (docker login: "-p, --password"; podman, nerdctl, buildah, skopeo, helm registry, oras alike), curl's `-u /
# --user USER:PASSWORD` (curl(1)), and the key `wandb login KEY` takes (https://docs.wandb.ai/ref/cli/wandb-login/).
# Each is read within its own command (no ';', '|', '&' or line end between) and the value is the run to a blank.
# (red team 2026-11-29, docs/security.md 112.: a value in quotes is read to its closing quote, blanks and separators
# too, `sshpass -p 'Pa;ss|w0rd'`: the run to the first ';' left 'ss|w0rd' in clear; an unclosed quote reads as before)
# (an echo's `"X\n"`: the escape is echo's, not the password's)
_OPVAL = r"""(?P<v>(?<=')[^'\n]{1,256}?(?=(?:\\n)?')|(?<=")[^"\n]{1,256}?(?=(?:\\n)?")|[^\s'"`\\;|&]{1,256})"""
# the same where the quote opened before the switch or the user (`'-pX Y'`, `-p'X Y'`, `-u 'U:X Y'`): named `q`
_QVAL = r"""(?P<v>(?(q)[^'"\n]{1,256}(?=['"])|[^\s'"`\\;|&]{1,256}))"""
_CMD_SECRETS = tuple(re.compile(r"(?<![\w.-])" + rx) for rx in (
    r"(?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlcheck|mysqlshow|mariadb|mariadb-dump|mariadb-admin)"
    r"(?=[ \t])[^\n;|&]{0,300}?[ \t](?:(?P<q>['\"])-p|-p(?P<q2>['\"])?)(?=[^\s'\"`])"
    r"(?P<v>(?(q)[^'\"\n]{1,256}(?=['\"])|(?(q2)[^'\"\n]{1,256}(?=['\"])|[^\s'\"`\\;|&]{1,256})))",
    r"sshpass(?=[ \t])[^\n;|&]{0,100}?[ \t]-p[ \t]{0,4}['\"]?" + _OPVAL,
    r"(?:docker|podman|nerdctl|buildah|skopeo|oras|crane|helm[ \t]{1,4}registry)[ \t]{1,4}login(?=[ \t])"
    r"[^\n;|&]{0,300}?[ \t]-p(?:[ \t]{1,4}|=)['\"]?" + _OPVAL,
    r"curl(?=[ \t])[^\n;|&]{0,300}?[ \t](?:-u[ \t]{0,4}|--user(?:[ \t]{1,4}|=))(?P<q>['\"])?[^\s:'\"`]{0,128}:"
    + _QVAL,
    r"wandb[ \t]{1,4}login(?:[ \t]{1,4}--?[a-z][a-z-]{0,30}(?:=[^\s]{1,200})?){0,8}[ \t]{1,4}['\"]?"
    r"(?P<v>[A-Za-z0-9_-]{20,200})(?![^\s'\"])"))
# an environment variable's name and its value apart by blanks, no operator (`AWS_SECRET_ACCESS_KEY wJalr...`: a table
# of names and values, `printenv`-like listings, `aws configure list`): read only for an upper-case credential's name
# and a value that looks random, 6 to 512 characters holding a letter and a digit (a sentence's next word is
# neither: 'HF_TOKEN is not set') (docs/security.md 79.; 6, not 16, since red team 2026-11-28f, 85.: 'DB_PASSWORD
# hunter2'); a name after '$' is a variable's expansion in a command, not a listing ('PYTHONPATH=$PWD python3')
# (a color code may stand before the value: a table printed in color, `NAME \x1b[32mVALUE\x1b[0m`)
_BARE_PAIR = re.compile(r"(?<![\w.$-])(?P<name>[A-Z][A-Z0-9_]{2,80})(?P<op>[ \t]{1,8}(?:\x1b\[[0-9;]{0,20}m)?)"
                        r"(?=[A-Za-z0-9/+=_.-]{0,511}[0-9])(?=[A-Za-z0-9/+=_.-]{0,511}[A-Za-z])"
                        r"(?=[A-Za-z0-9/+=_.-]{6,512}(?:\x1b\[[0-9;]{0,20}m)?(?![^\s'\"`,;)\]}]))")
# the same for a lower-case snake_case name of two words or more and a value that looks random (16 to 512 characters
# holding a letter and a digit): `aws configure set aws_secret_access_key X` (the AWS CLI's documented form,
# https://docs.aws.amazon.com/cli/latest/reference/configure/set.html), `rclone config create r s3 secret_access_key X`
# (red team 2026-11-28h, docs/security.md 97.)
_BARE_SNAKE = re.compile(r"(?<![\w.$-])(?P<name>[a-z][a-z0-9]{0,40}(?:_[a-z0-9]{1,40}){1,6})(?P<op>[ \t]{1,8})"
                         r"(?=[A-Za-z0-9/+=_.-]{0,511}[0-9])(?=[A-Za-z0-9/+=_.-]{0,511}[A-Za-z])"
                         r"(?=[A-Za-z0-9/+=_.-]{16,512}(?![^\s'\"`,;)\]}]))")
# a password a command reads on its stdin: the word `echo` or `printf` writes into a pipe, or a here-string's, that
# ends in a program reading a secret there (red team 2026-11-28h, docs/security.md 92., 96.): a registry login's
# `--password-stdin` (docker, podman, helm registry, oras, skopeo, nerdctl alike:
# https://docs.docker.com/reference/cli/docker/login/#password-stdin), gh's `--with-token`
# (https://cli.github.com/manual/gh_auth_login), `sudo -S` (sudo(8): "read the password from the standard input"),
# `kinit` (MIT kinit(1) reads the password from the terminal or stdin), `chpasswd` (user:password lines, chpasswd(8))
# and `passwd --stdin` (RHEL's passwd(1)). A `set -x` trace writes a pipeline's commands on lines of their own ('+ echo
# X' beside '+ docker login -u U --password-stdin', in either order), so a traced echo or printf on the line before or
# after such a reader is one too.
_ECHOED = r"""(?:echo|printf)(?:[ \t]{1,4}(?:-[neE]{1,3}|'%s(?:\\n)?'|"%s(?:\\n)?"|%s))?[ \t]{1,4}['"]?""" + _OPVAL + \
    r"(?:\\n)?"
# (a program may be named by its path, `/usr/bin/sudo -S`, `./zip -P X`: the readers' programs stand after a '/' too,
# red team 2026-11-29, docs/security.md 105.)
_DIR = r"(?:[\w.~+-]{0,64}/){0,16}"
_READER = (r"(?:[^\n;&|]{0,300}?[ \t]--(?:password-stdin|with-token)(?![\w-])"
           r"|[ \t]{0,4}" + _DIR + r"(?:sudo[ \t](?:[^\n;&|]{0,60}?[ \t])?-[A-Za-z]{0,5}S(?![\w-])"
           r"|(?:sudo[ \t]{1,4}" + _DIR + r")?(?:kinit|chpasswd)(?![\w.-])|(?:sudo[ \t]{1,4}" + _DIR +
           r")?passwd[ \t][^\n;&|]{0,60}?--stdin(?![\w-])))")
_STDIN_LINE = r"[ \t]{0,8}\+{1,8}[ \t]" + _READER.replace(r"[^\n;&|]{0,300}?", r"[^\n]{0,300}?", 1)
# up to three other trace lines between the two: a pipeline's sides start at once and bash traces each as it starts
# ('+ docker login ... --password-stdin', '++ cat regpass', '+ echo X' came in either order in clean-clone CI runs)
_GAP = r"(?:[ \t]{0,8}\+{1,8}[ \t][^\n]{0,300}\n){0,3}"
_STDIN_SECRETS = (
    re.compile(r"(?<![\w.-])" + _ECHOED + r"""['"]?[ \t]{0,4}\|""" + _READER),
    re.compile(r"(?:--(?:password-stdin|with-token)(?![\w-])|(?<![\w.-])(?:sudo[ \t][^\n;&|]{0,60}?-[A-Za-z]{0,5}S"
               r"|kinit|chpasswd|passwd[ \t][^\n;&|]{0,60}?--stdin)(?![\w-]))[^\n;&|]{0,300}?<<<[ \t]{0,4}['\"]?"
               + _OPVAL),
    re.compile(r"(?:^|(?<=\n))[ \t]{0,8}\+{1,8}[ \t]" + _ECHOED + r"""['"]?[ \t]{0,4}(?=\n"""
               + _GAP + _STDIN_LINE + ")"),
    re.compile(r"(?:^|(?<=\n))" + _STDIN_LINE + r"[^\n]{0,300}\n" + _GAP + r"[ \t]{0,8}\+{1,8}[ \t]" + _ECHOED))
_STDIN_NEEDLES = ("password-stdin", "with-token", "sudo", "kinit", "passwd")
# a password as a program's own operand where no name says so (96.; 76. has mysql, sshpass, registry logins, curl):
# OpenSSL's `-passin|-passout|-pass pass:X` (openssl-passphrase-options(1)), redis-cli's `-a X` (redis-cli --help:
# "-a <password>"), the OpenLDAP clients' `-w X` (ldapsearch(1): "-w passwd"), Samba's `-U user%X` (smbclient(1)),
# Azure's `az login -p X` and the MongoDB shells' `-p X` (mongosh --help: "-p, --password")
_OPERAND_SECRETS = tuple(re.compile(r"(?<![\w.-])" + rx) for rx in (
    r"-pass(?:in|out)?[ \t]{1,4}['\"]?pass:" + _OPVAL,
    r"redis-cli(?=[ \t])[^\n;|&]{0,300}?[ \t]-a[ \t]{1,4}['\"]?" + _OPVAL,
    r"ldap(?:search|modify|add|delete|passwd|compare|whoami|modrdn|exop)(?=[ \t])[^\n;|&]{0,300}?[ \t]-w[ \t]{1,4}"
    r"['\"]?" + _OPVAL,
    r"(?:smbclient|smbcacls|rpcclient|smbget)(?=[ \t])[^\n;|&]{0,300}?[ \t](?:-U|--user(?:name)?(?:=|[ \t]))[ \t]{0,4}"
    r"(?P<q>['\"])?[^\s%'\"`\\;|&]{1,128}%" + _QVAL,
    r"(?:az[ \t]{1,4}login|mongosh|mongo|mongodump|mongorestore|mongoexport|mongoimport)(?=[ \t])[^\n;|&]{0,300}?"
    r"[ \t]-p[ \t]{1,4}['\"]?" + _OPVAL,
    # (red team 2026-11-28i, docs/security.md 100.) an archive's password: Info-ZIP's `zip|unzip|zipcloak -P X`
    # (zip(1): "-P password --password password"; unzip(1) alike), 7-Zip's glued `-pX` (7z(1): "-p{Password}"), and
    # OpenSSL's `-k X` (openssl-enc(1), https://docs.openssl.org/master/man1/openssl-enc/: "-k password")
    # (red team 2026-11-29, 107.: Info-ZIP's parsers take -P glued and at a switch cluster's end too, `zip -rP X`,
    # `unzip -qoPX` (zip 3.0's get_option, unzip 6.0's per-letter switch loop), and OpenSSL's opt_next `-k=X`)
    r"(?:zip|unzip|zipcloak|funzip)(?=[ \t])[^\n;|&]{0,300}?[ \t]['\"]?-[A-Za-z]{0,8}?P(?:[ \t]{1,4}['\"]?"
    r"|(?=[^\s'\"`]))" + _OPVAL,
    r"(?:7z|7za|7zr|7zz)(?=[ \t])[^\n;|&]{0,300}?[ \t](?P<q>['\"])?-p(?=[^\s'\"`])" + _QVAL,
    # (red team 2026-11-29, 113.) RAR's `-pX` and `-hpX` (rar.txt, https://www.rarlab.com/: "-p[password] Set
    # password", "-hp[password] Encrypt both file data and headers"; `-p-` asks for none)
    r"(?:rar|unrar)(?=[ \t])[^\n;|&]{0,300}?[ \t](?P<q>['\"])?-h?p(?=[^\s'\"`-])" + _QVAL,
    r"openssl(?=[ \t])[^\n;|&]{0,300}?[ \t]-k(?:[ \t]{1,4}['\"]?|=)" + _OPVAL,
    # (red team 2026-11-29, 114.) the quote opened before OpenSSL's `pass:` (`-passin 'pass:X Y'`): read to the quote;
    # ssh-keygen's old and new passphrases (ssh-keygen(1), https://man.openbsd.org/ssh-keygen: "-N new_passphrase",
    # "-P passphrase"; getopt: glued or at a switch cluster's end, `-qN X`); sqlcmd's, bcp's and osql's `-P password`
    # (https://learn.microsoft.com/en-us/sql/tools/sqlcmd/sqlcmd-utility: "-P password"); `vault login TOKEN`'s
    # operand (https://developer.hashicorp.com/vault/docs/commands/login: "vault login [options] [AUTH K=V...]";
    # a token holds a digit or a dot, a method's name `-method userpass` does not)
    r"-pass(?:in|out)?[ \t]{1,4}(?P<q>['\"])pass:" + _QVAL,
    r"vault[ \t]{1,4}login(?:[ \t]{1,4}-{1,2}[A-Za-z][\w-]{0,40}(?:=[^\s;|&]{0,200})?){0,8}[ \t]{1,4}['\"]?"
    r"(?=[^\s'\"=`\\;|&]{0,255}[0-9.])(?P<v>[^\s'\"=`\\;|&-][^\s'\"=`\\;|&]{7,255})(?![^\s'\";|&])"))
# htpasswd's batch mode takes the password as its last operand (htpasswd(1),
# https://httpd.apache.org/docs/2.4/programs/htpasswd.html: "htpasswd -b [...] passwdfile username password",
# "htpasswd -bn [...] username password"): the last word of the command, read when a switch cluster before it holds
# 'b' and two words or more stand before it (a redirection after it is skipped: `htpasswd -b f u X > /dev/null`)
_HTPASSWD = re.compile(r"(?<![\w.-])htpasswd(?P<mid>(?:[ \t]{1,4}[^\s;|&<>]{1,256}){1,12}?)[ \t]{1,4}['\"]?"
                       + _OPVAL + r"""['"]?(?:[ \t]{1,4}[0-9]?>{1,2}&?[ \t]{0,4}[^\s;|&<>]{1,256}){0,2}[ \t]{0,8}"""
                       r"(?=[\n;|&)]|$)")
# a program whose password switches can come twice on a line (`ssh-keygen -p -P OLD -N NEW`): each switch of its
# command (up to a separator) is read, the program's and the switch's rules apart (the sources are above)
_SWITCH_SECRETS = (
    (re.compile(r"(?<![\w.-])ssh-keygen(?=[ \t])[^\n;|&]{1,300}"),
     re.compile(r"(?<=[ \t])-[A-Za-z]{0,8}?[NP](?:[ \t]{1,4}['\"]?|(?=[^\s'\"`]))" + _OPVAL)),
    (re.compile(r"(?<![\w.-])(?:sqlcmd|bcp|osql)(?=[ \t])[^\n;|&]{1,300}"),
     re.compile(r"(?<=[ \t])-P(?:[ \t]{1,4}['\"]?|(?=[^\s'\"`]))" + _OPVAL)))
_OPERAND_NEEDLES = ("pass:", "redis-cli", "ldap", "smb", "rpcclient", "az ", "mongo", "zip", "7z", "openssl", "rar",
                    "ssh-keygen", "sqlcmd", "bcp", "osql", "vault")
_CMD_NEEDLES = ("mysql", "mariadb", "sshpass", "login", "curl")


def _cmd_secret(m):
    if _PLACEHOLDER.match(m.group("v")):
        return m.group(0)
    return m.group(0)[:m.start("v") - m.start()] + MARK + m.group(0)[m.end("v") - m.start():]


_PLACEHOLDER = re.compile(r"""^["']?(?:\$\{?\w{1,80}\}?|<[^<>]{0,80}>|\.{2,}|x{3,}|\*{3,}|REDACTED|"""
                          r"""true|false|none|null|yes|no|)["']?$""", re.I)


def secret_name(name):
    """Whether a setting's name reads as a secret (its last word; `key` only after another word)."""
    # (a dotted name is read by its last part: 'munge.key' is a file, 'args.hub_token' a setting)
    # (camelCase read as words too: Azure's 'AccountKey=', 'clientSecret', 'accessToken')
    name = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name.strip("-").rsplit(".", 1)[-1])
    words = [w for w in re.split(r"[_\-]+", name.lower()) if w]
    if not words:
        return False
    last = words[-1]
    if last == "key":
        return len(words) > 1 and words[-2] not in ("sort", "cache", "primary", "foreign", "metric", "dict")
    if last == "token" and len(words) > 1 and words[-2] in _SPECIAL:
        return False
    return last in _LAST or last.endswith(("token", "secret", "password", "apikey"))


# words a flag's blank-separated 'value' is, in prose ('required option --passphrase or --pem-path missing')
_PROSE = {"or", "and", "to", "is", "are", "was", "not", "with", "for", "the", "a", "an", "in", "of", "on", "option",
          "flag", "missing", "given", "set", "required", "must", "should", "instead", "argument", "only", "if"}
_LINE_START = re.compile(r"(?:^|\n)[ \t]{0,40}(?:-[ \t]{1,4})?$")
# (searched from 48 characters before the name only: a match is at most 46 long, and '^' matches only at the text's
# real start; from 0 it cost the whole line before each name, 2 s for a 64 KiB line of 'x token: abc ')


# a value that looks random: 16 to 512 characters of a key's alphabet holding a letter and a digit (_BARE_PAIR's long
# form; prose, a count and a format are not: 'token: %s', 'token: 12345')
_RANDOM = re.compile(r"^(?=[^\s]{0,511}[0-9])(?=[^\s]{0,511}[A-Za-z])[A-Za-z0-9/+=_.-]{16,512}$")


def _value(m, v):
    """The replacement of the span from ``m`` (a name and its operator) to the end of its value ``v`` (None: kept)."""
    name, op = m.group("name"), m.group("op")
    if _PLACEHOLDER.match(v):
        return None  # a placeholder
    if name == "PWD" and v.lstrip("\"'")[:1] in ("/", "~"):
        return None  # POSIX's working directory ('PWD=/home/alice/run'), not ODBC's password ('UID=sa;PWD=X')
    if name.lower().endswith("key") and re.match(r"^\d{1,4}(?::[a-z_]{1,40})?$", v):
        return None  # a key's number ('store_based_barrier_key:0:last_worker', a cache key's index): no credential
    if ":" in op and name.isupper() and re.match(r"[A-Z][a-z]{1,40} [a-z]", m.string[m.end():m.end() + 44]):
        return None  # an error code's sentence ('ESLURMD_INVALID_JOB_CREDENTIAL: Invalid job credential')
    if not op.strip() and (v[0] == "-" or v.lower() in _PROSE):
        return None  # the next flag after a bare switch, or prose after an option's name
    if ":" in op and "q" in m.re.groupindex and not m.group("q") and not re.search(r"[_.-]", name) and \
            not _LINE_START.search(m.string, max(0, m.start() - 48), m.start()) and not _RANDOM.match(v):
        return None  # 'a token: huggingface-cli login', '(token: %s)': a one-word name with ':' is a YAML key
        #              only at its line's start (a dotted name is a key anywhere: '[rank0] cfg.wandb.api_key: X');
        #              past it, only a value that looks random is one ('login with token: 9f8e...', 85.)
    q = v[0] if v[0] in "\"'" and len(v) > 1 and v[-1] == v[0] else ""
    return m.group(0) + q + MARK + q


def _assignments(rx, text):
    """``text`` with the value after every match of ``rx`` (a name and its operator) whose name reads as a secret's
    replaced. The value is read only there (_VALUE_RX at the match's end), never consumed by another name's match:
    a name inside a value that is not a secret's is read too ('ChildFailedError:  WANDB_API_KEY=X' read
    'WANDB_API_KEY=X' as the value of 'ChildFailedError', red team 2026-11-27b)."""
    out, last = [], 0
    for m in rx.finditer(text):
        if m.start() < last:
            continue
        low = m.group("name").lower()
        if not any(n in low for n in _NAME_NEEDLES) or not secret_name(m.group("name")):
            continue
        v = _VALUE_RX.match(text, m.end())
        new = _value(m, v.group(0)) if v else None
        if new is not None:
            out.append(text[last:m.start()])
            out.append(new)
            last = v.end()
    if not out:
        return text
    out.append(text[last:])
    return "".join(out)


_SGR = re.compile(r"\x1b\[[0-9;]{0,32}m")
# an argument vector written as a list, each word quoted apart: Python's repr of a list of str
# (subprocess.CalledProcessError's "Command '['sshpass', '-p', 'X']' returned non-zero exit status 5",
# https://docs.python.org/3/library/subprocess.html#subprocess.CalledProcessError; a logged sys.argv) or a JSON array.
# No reader of a flag and its value or of a program's operand sees `--password X` there, so each list of 2-256 words
# is read as the command line its words make, and a word that reading redacts is written back in its own quotes
# (red team 2026-11-29, docs/security.md 106.)
_ITEM = r"'[^'\\\n]{0,512}'" + r'|"[^"\\\n]{0,512}"'
_ARGV = re.compile(r"\[[ \t]{0,4}(?:%s)(?:,[ \t]{0,4}(?:%s)){1,255}" % (_ITEM, _ITEM))
_ITEM_RX = re.compile(_ITEM)
_PLAIN_WORD = re.compile(r"""[^\s'"`\\]{1,512}""")
_SEPARATOR = re.compile(r"[;|&<>()]")


def _argv_word(m):
    """One list of words (_ARGV's match), each word the command line of all of them redacts written so."""
    items = list(_ITEM_RX.finditer(m.group(0)))
    # a word with a blank or a quote is no word of a command line: '_' stands for it (its own text is read as it is)
    words = [i.group(0)[1:-1] if _PLAIN_WORD.fullmatch(i.group(0)[1:-1]) else "_" for i in items]
    # (a word is one argument: one holding a separator is read in quotes, `'Pa;ss|w0rd'`, so a reader takes it whole;
    # bare, the run to its ';' was the value and 'ss|w0rd' stayed in clear, 112.)
    words = ["'%s'" % w if _SEPARATOR.search(w) else w for w in words]
    red = _redact(" ".join(words)).split(" ")
    if len(red) != len(words) or red == words:
        return m.group(0)
    out, last = [], 0
    for i, w, r in zip(items, words, red):
        if w != "_" and r != w:
            if w[0] == "'" and len(r) > 1 and r[0] == r[-1] == "'":
                r = r[1:-1]
            out.append(m.group(0)[last:i.start() + 1])
            out.append(r.replace("'", "").replace('"', ""))
            last = i.end() - 1
    out.append(m.group(0)[last:])
    return "".join(out)


def redact(text):
    """The string with every secret-looking value replaced by REDACTED."""
    if not isinstance(text, str) or not text:
        return text
    if "['" in text[:MAX_STRING] or '["' in text[:MAX_STRING]:
        text = _ARGV.sub(_argv_word, text[:MAX_STRING]) + text[MAX_STRING:]
    out = _redact(text)
    if "\x1b[" in text[:MAX_STRING]:
        # a log printed in color: an SGR code (ECMA-48 'ESC [ ... m') between a name and its value or inside the
        # value hid it from the readings ('Authorization: Bearer \x1b[2mTOKEN', 'login with token: \x1b[1mKEY');
        # where the text without its codes holds more secrets, that is what is shown (the text report writes the
        # codes as '\x1b[32m' text anyway); else the string keeps its codes (red team 2026-11-28f, 85.)
        plain = _SGR.sub("", text)
        if plain != text:
            red = _redact(plain)
            if red.count(MARK) > out.count(MARK) + plain.count(MARK) - text.count(MARK):
                return red
    return out


def _redact(text):
    low = text[:MAX_STRING].lower()
    if not any(n in low for n in _NEEDLES):
        return text
    head, tail = text[:MAX_STRING], text[MAX_STRING:]
    if any(n in low for n in ("token", "secret", "pass", "key", "cred", "auth", "jwt", "bearer", "pwd")):
        head = _assignments(_FLAG, head)
        head = _assignments(_ASSIGN, head)
        head = _assignments(_BARE_PAIR, head)
        if "_" in head:
            head = _assignments(_BARE_SNAKE, head)
        if "password" in low:
            head = _NETRC.sub(_netrc, head)
    head = _SHAPES.sub(MARK, head)
    head = _PARTIAL.sub(MARK, head)
    if "bearer" in low or "basic" in low:
        head = _BEARER.sub(lambda m: m.group(1) + " " + MARK, head)
    if "://" in low:
        head = _USERINFO.sub(lambda m: m.group(1) + MARK + "@", head)
        head = _PARTIAL_USERINFO.sub(lambda m: m.group(1) + MARK, head)
    if any(n in low for n in _WEBHOOK_NEEDLES):
        head = _PATH_SECRET.sub(lambda m: m.group(1) + MARK, head)
    if "=" in head and ("?" in head or "&" in head):
        head = _QUERY.sub(lambda m: m.group(0) if _PLACEHOLDER.match(m.group("value")) or not (
            secret_name(m.group("name")) or m.group("name").lower() in _QUERY_SECRET)
            else m.group("name") + "=" + MARK, head)
    if "private key-----" in low:
        head = _PEM.sub(lambda m: m.group(1) + " " + MARK, head)
    if any(n in low for n in _CMD_NEEDLES):
        for rx in _CMD_SECRETS:
            head = rx.sub(_cmd_secret, head)
    if any(n in low for n in _STDIN_NEEDLES):
        for rx in _STDIN_SECRETS:
            head = rx.sub(_cmd_secret, head)
    if any(n in low for n in _OPERAND_NEEDLES):
        for rx in _OPERAND_SECRETS:
            head = rx.sub(_cmd_secret, head)
        for cmd, switch in _SWITCH_SECRETS:
            head = cmd.sub(lambda m: switch.sub(_cmd_secret, m.group(0)), head)
    if "htpasswd" in low:
        head = _HTPASSWD.sub(lambda m: _cmd_secret(m) if re.search(r"[ \t]-[A-Za-z]{0,8}b", m.group("mid"))
                             and len(m.group("mid").split()) >= 2 else m.group(0), head)
    return head + (_SHAPES.sub(MARK, tail) if tail else "")


def apply(obj):
    """Every string of an answer (dicts, lists, tuples), redacted in place; returns the object."""
    if isinstance(obj, dict):
        for k in list(obj):
            obj[k] = apply(obj[k])
        return obj
    if isinstance(obj, list):
        for i, v in enumerate(obj):
            obj[i] = apply(v)
        return obj
    if isinstance(obj, tuple):
        return tuple(apply(v) for v in obj)
    if isinstance(obj, str):
        return redact(obj)
    return obj
