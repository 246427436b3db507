"""A Kafka client properties file (``--command-config``), read as Kafka's tools read it, for kafka-python.

Guarantee: no value from the file ever appears in a message, an output or a log line; a key this reader
cannot honour is one line naming the key (never its value), and so is a key it does not know among the
security settings (``security.*``, ``sasl.*``, ``ssl.*``).  Every other key of a client's properties
(``group.id``, serializers, ...) is read and ignored: an operator's existing ``client.properties`` works.

The keys are the Java client's own (``CommonClientConfigs``, ``SaslConfigs``, ``SslConfigs``):

======================================  ==================================================================
``security.protocol``                    PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL
``sasl.mechanism``                       PLAIN, SCRAM-SHA-256, SCRAM-SHA-512, GSSAPI, OAUTHBEARER (a token
                                         in ``sasl.jaas.config``'s unsecured ``unsecuredLoginStringClaim_sub``
                                         is not supported: one line)
``sasl.jaas.config``                     ``...PlainLoginModule required username="u" password="p";`` and
                                         ``...ScramLoginModule ...`` (the username and password are read);
                                         ``...Krb5LoginModule ...`` (``serviceName`` is read)
``sasl.kerberos.service.name``           GSSAPI's service name
``ssl.truststore.type``                  PEM only (JKS and PKCS12 are one line: convert with keytool/openssl)
``ssl.truststore.location``,             a PEM file of CA certificates; the certificates themselves
``ssl.truststore.certificates``
``ssl.keystore.type``                    PEM only
``ssl.keystore.location``,               a PEM file with the client's key and certificate chain; or both
``ssl.keystore.key``,                    inline; ``ssl.key.password`` decrypts the key
``ssl.keystore.certificate.chain``,
``ssl.key.password``
``ssl.endpoint.identification.algorithm``  empty: the broker's host name is not checked (default https)
``client.id``                            the client id the brokers log
``request.timeout.ms``                   a request's limit (never above ``--timeout``)
======================================  ==================================================================

The file format is ``java.util.Properties.load``'s: ``key=value``, ``key: value`` or ``key value``; ``#``
and ``!`` comments; a line ending in an odd number of backslashes continues on the next; ``\\t``, ``\\n``,
``\\uXXXX`` escapes.
"""

from __future__ import annotations

import os
import re
import ssl
import tempfile
from dataclasses import dataclass, field
from typing import Any, Mapping

from assignment_oracle.problem.errors import InputError

__all__ = ["ClientConfig", "read_properties", "parse_properties"]

#: Values never shown: every key holding one is read and used, never echoed (also in ``repr``).
SECRET_KEYS = frozenset(
    {
        "sasl.jaas.config",
        "ssl.key.password",
        "ssl.keystore.password",
        "ssl.truststore.password",
        "ssl.keystore.key",
        "sasl.oauthbearer.client.credentials.client.secret",
    }
)

#: Security keys read here; any other ``security.``/``sasl.``/``ssl.`` key is refused (it would change how
#: a Java client connects, and silently ignoring it could connect differently).
_KNOWN = frozenset(
    {
        "security.protocol",
        "sasl.mechanism",
        "sasl.jaas.config",
        "sasl.kerberos.service.name",
        "ssl.truststore.type",
        "ssl.truststore.location",
        "ssl.truststore.certificates",
        "ssl.truststore.password",
        "ssl.keystore.type",
        "ssl.keystore.location",
        "ssl.keystore.key",
        "ssl.keystore.certificate.chain",
        "ssl.keystore.password",
        "ssl.key.password",
        "ssl.endpoint.identification.algorithm",
        "ssl.protocol",
        "ssl.enabled.protocols",
    }
)
_PROTOCOLS = ("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL")
_MECHANISMS = ("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512", "GSSAPI", "OAUTHBEARER")


@dataclass(frozen=True)
class ClientConfig:
    """The connection settings of a client properties file, as kafka-python's configuration.

    ``options`` hold secrets: the dataclass's ``repr`` shows only the keys.
    """

    source: str = ""
    options: Mapping[str, Any] = field(default_factory=dict, repr=False)
    request_timeout_ms: int | None = None

    def __repr__(self) -> str:
        return f"ClientConfig(source={self.source!r}, keys={sorted(self.options)})"

    @property
    def secrets(self) -> tuple[str, ...]:
        """Every secret value this configuration holds (what tests grep every output for)."""
        return tuple(str(v) for k, v in self.options.items() if k in _SECRET_OPTIONS and v)


#: kafka-python options that hold a secret.
_SECRET_OPTIONS = frozenset({"sasl_plain_password", "ssl_password"})


def read_properties(path: str) -> ClientConfig:
    """The :class:`ClientConfig` of the properties file at ``path``; one line naming the key when a setting
    cannot be honoured (never its value)."""
    try:
        with open(path, "rb") as handle:
            raw = handle.read()
    except OSError as err:
        raise InputError(path, "", f"cannot read the client properties ({err.strerror or err})") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        text = raw.decode("latin-1")  # Properties.load(InputStream) reads ISO 8859-1
    return _config(parse_properties(text), path)


def parse_properties(text: str) -> dict[str, str]:
    """``java.util.Properties.load`` on ``text``: key -> value (the last one of a key wins)."""
    properties: dict[str, str] = {}
    lines = text.splitlines()
    index = 0
    while index < len(lines):
        line = lines[index].lstrip(" \t\f")
        index += 1
        if not line or line[0] in "#!":
            continue
        while _continues(line) and index < len(lines):
            line = line[:-1] + lines[index].lstrip(" \t\f")
            index += 1
        if _continues(line):
            line = line[:-1]
        key, value = _split(line)
        properties[_unescape(key)] = _unescape(value)
    return properties


def _continues(line: str) -> bool:
    trailing = len(line) - len(line.rstrip("\\"))
    return trailing % 2 == 1


def _split(line: str) -> tuple[str, str]:
    """A logical line's key and value: the key ends at the first unescaped ``=``, ``:`` or whitespace."""
    i = 0
    while i < len(line):
        c = line[i]
        if c == "\\":
            i += 2
            continue
        if c in "=: \t\f":
            break
        i += 1
    key, rest = line[:i], line[i:]
    rest = rest.lstrip(" \t\f")
    if rest[:1] in ("=", ":"):
        rest = rest[1:].lstrip(" \t\f")
    return key, rest


_ESCAPES = {"t": "\t", "n": "\n", "r": "\r", "f": "\f"}


def _unescape(text: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(text):
        c = text[i]
        if c == "\\" and i + 1 < len(text):
            nxt = text[i + 1]
            if nxt == "u" and re.fullmatch(r"[0-9a-fA-F]{4}", text[i + 2 : i + 6]):
                out.append(chr(int(text[i + 2 : i + 6], 16)))
                i += 6
                continue
            out.append(_ESCAPES.get(nxt, nxt))
            i += 2
            continue
        out.append(c)
        i += 1
    return "".join(out)


def _config(properties: Mapping[str, str], source: str) -> ClientConfig:
    def fail(key: str, problem: str) -> InputError:
        return InputError(source, key, problem)

    for key in properties:
        if key.startswith(("security.", "sasl.", "ssl.")) and key not in _KNOWN:
            raise fail(key, "is not supported by capture (its client is kafka-python): remove it or ask for it")
    options: dict[str, Any] = {}
    protocol = properties.get("security.protocol", "PLAINTEXT").strip().upper()
    if protocol not in _PROTOCOLS:
        raise fail("security.protocol", f"must be one of {', '.join(_PROTOCOLS)}")
    options["security_protocol"] = protocol
    if "client.id" in properties:
        options["client_id"] = properties["client.id"]
    timeout = None
    if "request.timeout.ms" in properties:
        try:
            timeout = int(properties["request.timeout.ms"])
        except ValueError:
            raise fail("request.timeout.ms", "must be a whole number of milliseconds") from None
        if timeout <= 0:
            raise fail("request.timeout.ms", "must be positive")
    if protocol.startswith("SASL"):
        options.update(_sasl(properties, fail))
    if protocol.endswith("SSL"):
        options["ssl_context"] = _ssl_context(properties, fail)
    return ClientConfig(source=source, options=options, request_timeout_ms=timeout)


_JAAS_OPTION = re.compile(r'(\w+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s;]+))')


def _sasl(properties: Mapping[str, str], fail) -> dict[str, Any]:
    mechanism = properties.get("sasl.mechanism", "GSSAPI").strip().upper()  # the Java client's default
    if mechanism not in _MECHANISMS:
        raise fail("sasl.mechanism", f"must be one of {', '.join(_MECHANISMS)}")
    options: dict[str, Any] = {"sasl_mechanism": mechanism}
    jaas = properties.get("sasl.jaas.config", "")
    values = {m.group(1): (m.group(2) if m.group(2) is not None else m.group(3)) for m in _JAAS_OPTION.finditer(jaas)}
    values = {k: re.sub(r"\\(.)", r"\1", v) for k, v in values.items()}
    if mechanism in ("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"):
        if not values.get("username") or "password" not in values:
            raise fail("sasl.jaas.config", f'{mechanism} needs a login module with username="..." and password="..."')
        options["sasl_plain_username"] = values["username"]
        options["sasl_plain_password"] = values["password"]
    elif mechanism == "GSSAPI":
        service = properties.get("sasl.kerberos.service.name") or values.get("serviceName")
        if service:
            options["sasl_kerberos_service_name"] = service
    else:
        raise fail("sasl.mechanism", "OAUTHBEARER needs a token provider: capture supports PLAIN, SCRAM and GSSAPI")
    return options


def _ssl_context(properties: Mapping[str, str], fail) -> ssl.SSLContext:
    for key in ("ssl.truststore.type", "ssl.keystore.type"):
        kind = properties.get(key, "").strip().upper()
        stored = key.replace(".type", ".location")
        if kind and kind != "PEM" or (not kind and properties.get(stored) and not _looks_pem(properties[stored])):
            raise fail(
                key,
                "capture reads PEM stores only (Python's TLS): convert the JKS or PKCS12 store to PEM "
                "(keytool -importkeystore, openssl pkcs12) and set it to PEM",
            )
    context = ssl.create_default_context(ssl.Purpose.SERVER_AUTH)
    algorithm = properties.get("ssl.endpoint.identification.algorithm", "https").strip()
    if not algorithm:
        context.check_hostname = False
    try:
        if properties.get("ssl.truststore.location"):
            context.load_verify_locations(cafile=properties["ssl.truststore.location"])
        if properties.get("ssl.truststore.certificates"):
            context.load_verify_locations(cadata=properties["ssl.truststore.certificates"])
    except (OSError, ssl.SSLError):
        raise fail("ssl.truststore.location", "cannot be read as PEM certificates") from None
    password = properties.get("ssl.key.password") or None
    try:
        if properties.get("ssl.keystore.location"):
            context.load_cert_chain(properties["ssl.keystore.location"], password=password)
        elif properties.get("ssl.keystore.key") or properties.get("ssl.keystore.certificate.chain"):
            _load_inline_chain(context, properties, password)
    except (OSError, ssl.SSLError, ValueError):
        raise fail("ssl.keystore.location", "cannot be read as a PEM key and certificate chain") from None
    return context


def _looks_pem(path: str) -> bool:
    try:
        with open(path, "rb") as handle:
            return b"-----BEGIN" in handle.read(65536)
    except OSError:
        return True  # let the loader name the problem


def _load_inline_chain(context: ssl.SSLContext, properties: Mapping[str, str], password: str | None) -> None:
    """``ssl.keystore.key`` and ``ssl.keystore.certificate.chain`` given inline: through a private temporary
    file (``load_cert_chain`` reads files only), removed at once."""
    chain = properties.get("ssl.keystore.certificate.chain", "") + "\n" + properties.get("ssl.keystore.key", "")
    descriptor, path = tempfile.mkstemp(prefix="capture-keystore-", suffix=".pem")
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            handle.write(chain)
        context.load_cert_chain(path, password=password)
    finally:
        os.unlink(path)
