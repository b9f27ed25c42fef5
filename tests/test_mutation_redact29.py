"""Mutation round 24 (docs/mutation.md): red team 2026-11-28h's redaction (docs/security.md 92., 96., 97.). mutmut
mutates function bodies only, so the patterns (module constants of explain/redact.py and collector/python_env.py)
were mutated by hand (docs/mutation.md round 24 lists them): each alternative of each pattern is one form here, and
both readers (explain's redact and a --python wrapper's _no_values) must hide exactly the password, nothing more.
The here-string forms after a credential's flag (`gh auth login --with-token <<< X`) were in clear before round 24:
the flag took '<<<' as its value."""
import pytest

from gpudoctor.collector.python_env import _no_values
from gpudoctor.explain.redact import redact

PW = "Zq81hunter2xyz"

# each: the text, with %s where the password is; both readers hide exactly that word
EXACT = [
    "echo %s | docker login -u bob --password-stdin nvcr.io",
    "printf '%%s\\n' \"%s\" | podman login -u bob --password-stdin quay.io",
    "printf %s | helm registry login r.io --password-stdin",
    "echo -n '%s' | oras login r.io -u bob --password-stdin",
    "docker login -u bob --password-stdin nvcr.io <<< %s",
    "echo %s | gh auth login --with-token",
    "gh auth login --with-token <<< '%s'",
    "gh auth login --with-token <<< %s",
    "some-cli --api-key <<< \"%s\"",
    "echo %s | sudo -S systemctl restart slurmd", "echo %s | sudo -kS ls", "echo %s | sudo -u bob -S ls",
    "echo %s | kinit alice@EXAMPLE.COM", "echo %s | sudo kinit alice",
    "echo -e \"%s\\n\" | passwd --stdin alice", "echo %s | sudo passwd --stdin alice",
    "sudo -S <<< %s ls", "kinit alice <<< %s", "passwd alice --stdin <<< %s",
    "+ echo %s\n+ sudo -S ls", "+ kinit alice\n+ echo %s", "+ printf %s\n+ docker login -u b --password-stdin r",
    "++ docker login -u b --password-stdin r\n++ echo %s",
    "openssl pkcs12 -in a.p12 -passin pass:%s", "openssl pkcs12 -export -passout pass:%s",
    "openssl rsa -in k -passin 'pass:%s'",
    "redis-cli -h r -a %s ping", "redis-cli -a '%s' ping",
    "ldapadd -x -w %s", "ldapdelete -w %s x", "ldappasswd -w %s", "ldapwhoami -x -w %s",
    "smbclient //h/s -U alice%%%s", "smbcacls //h/s f -U alice%%%s", "rpcclient h -U alice%%%s",
    "smbget -U alice%%%s smb://h/f", "smbclient //h/s --username alice%%%s",
    "az login -u alice -p %s", "mongosh -u alice -p %s", "mongo -u alice -p %s db", "mongodump -u alice -p %s",
    "mongorestore -u a -p %s", "mongoexport -u a -p %s", "mongoimport -u a -p %s",
    "keytool -list -keystore k.jks -storepass %s", "keytool -genkey -keypass %s",
]


@pytest.mark.parametrize("form", EXACT)
def test_each_form_of_a_password_read_on_stdin_or_as_an_operand_loses_exactly_the_password(form):
    text = form % PW
    assert redact(text) == text.replace(PW, "REDACTED")
    assert _no_values(text) == text.replace(PW, "...")


# each: the text, and the words either reader keeps (it hides more than the password: the user with it, a second
# keytool password, an LDAP bind name)
WIDER = [
    ("echo alice:%s | chpasswd", "| chpasswd"), ("echo alice:%s | sudo chpasswd", "| sudo chpasswd"),
    ("chpasswd <<< alice:%s", "chpasswd <<< "), ("openssl enc -pass pass:%s", "openssl enc -pass "),
    ("ldapsearch -x -D cn=admin -w %s", "ldapsearch -x -D cn="), ("ldapmodify -D cn=admin -w %s -f x.ldif", "-f x.ldif"),
    ("smbclient //h/s --user=alice%%%s", "smbclient //h/s --user="),
    ("keytool -importkeystore -srckeypass %s -destkeypass x", "-destkeypass "),
    ("keytool -importkeystore -srcstorepass %s -deststorepass x", "-deststorepass "),
]


@pytest.mark.parametrize("form,kept", WIDER)
def test_each_other_form_loses_the_password_and_keeps_its_program(form, kept):
    text = form % PW
    for got in (redact(text), _no_values(text)):
        assert PW not in got and kept in got, got


@pytest.mark.parametrize("name,value", [
    ("aws_secret_access_key", PW + "AbCdEf"), ("aws_session_token", PW + "AbCdEf"),
    ("secret_access_key", PW + "AbCdEf"), ("api_key", PW + "Ab"),  # 16 characters: the least a value is read at
])
def test_a_snake_case_credential_and_its_value_apart_by_blanks_loses_the_value(name, value):
    text = "aws configure set %s %s" % (name, value)
    assert redact(text) == "aws configure set %s REDACTED" % name
    assert _no_values(text) == "aws configure set %s ..." % name


def test_placeholders_and_ordinary_words_are_kept():
    for text in ("echo 3 | sudo tee /proc/sys/vm/drop_caches", "echo $PW | sudo -S ls", "ls -S | head",
                 "echo done; kinit", "redis-cli -h r ping", "ldapsearch -x -LLL uid", "cat <<< hi",
                 "gh auth login --with-token <<< \"$GH_TOKEN\"", "set api_key %s" % (PW + "A"),  # 15: too short
                 "aws configure set region us-east-1", "the max_new_tokens 0123456789abcdef0123"):
        assert redact(text) == text and _no_values(text) == text, text
