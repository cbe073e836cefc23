/*
 * nginx_lint: a log_format checked as nginx.conf would have it, before it
 * is compiled (nginx.c): every "[" closed by "]" and every '"' by another,
 * as the lines nginx writes have them, and every variable one that nginx
 * or its modules define (nginx.org's index of variables), or of a family
 * such as $http_NAME.  A name one or two letters from one of nginx's is
 * taken for a misspelling and refused, naming the nearest; written as
 * ${name} it is taken as it is.  A name far from all of nginx's is one of
 * the configuration's own (map, set, a third-party module): it is noted,
 * not refused.
 */
#include "agent/udtf/nginx_int.h"

#include <stdint.h>

#include "lib/err.h"
#include "lib/nearest.h"

/* nginx's variables, http and stream, from nginx.org/en/docs/varindex.html
 * (1.27), without the families below. */
static const char *const nginx_known_vars[] = {
	"acme_certificate", "acme_certificate_key", "ancient_browser", "args",
	"binary_remote_addr", "body_bytes_sent", "bytes_received",
	"bytes_sent", "connection", "connection_requests", "connection_time",
	"connections_active", "connections_reading", "connections_waiting",
	"connections_writing", "content_length", "content_type", "date_gmt",
	"date_local", "document_root", "document_uri", "fastcgi_path_info",
	"fastcgi_script_name", "geoip_area_code", "geoip_city",
	"geoip_city_continent_code", "geoip_city_country_code",
	"geoip_city_country_code3", "geoip_city_country_name",
	"geoip_country_code", "geoip_country_code3", "geoip_country_name",
	"geoip_dma_code", "geoip_latitude", "geoip_longitude", "geoip_org",
	"geoip_postal_code", "geoip_region", "geoip_region_name", "gzip_ratio",
	"host", "hostname", "http2", "http3", "https", "invalid_referer",
	"is_args", "jwt_payload", "limit_conn_status", "limit_rate",
	"limit_req_status", "memcached_key", "modern_browser", "msec", "msie",
	"mqtt_preread_clientid", "mqtt_preread_username", "nginx_version",
	"otel_parent_id", "otel_parent_sampled", "otel_span_id",
	"otel_trace_id", "pid", "pipe", "protocol", "proxy_add_x_forwarded_for",
	"proxy_host", "proxy_port", "proxy_protocol_addr",
	"proxy_protocol_port", "proxy_protocol_server_addr",
	"proxy_protocol_server_port", "query_string", "quic",
	"realip_remote_addr", "realip_remote_port", "realpath_root",
	"remote_addr", "remote_port", "remote_user", "request",
	"request_body", "request_body_file", "request_completion",
	"request_filename", "request_id", "request_length", "request_method",
	"request_time", "request_uri", "scheme", "secure_link",
	"secure_link_expires", "server_addr", "server_name",
	"server_port", "server_protocol", "session_log_binary_id",
	"session_log_id", "session_time", "slice_range", "spdy",
	"spdy_request_priority", "ssl_alpn_protocol", "ssl_cipher",
	"ssl_ciphers", "ssl_client_cert", "ssl_client_escaped_cert",
	"ssl_client_fingerprint", "ssl_client_i_dn", "ssl_client_i_dn_legacy",
	"ssl_client_raw_cert", "ssl_client_s_dn", "ssl_client_s_dn_legacy",
	"ssl_client_serial", "ssl_client_sigalg", "ssl_client_v_end",
	"ssl_client_v_remain", "ssl_client_v_start", "ssl_client_verify",
	"ssl_curve", "ssl_curves", "ssl_early_data",
	"ssl_preread_alpn_protocols", "ssl_preread_protocol",
	"ssl_preread_server_name", "ssl_protocol", "ssl_server_name",
	"ssl_session_id", "ssl_session_reused", "ssl_sigalg", "status",
	"tcpinfo_rcv_space", "tcpinfo_rtt", "tcpinfo_rttvar",
	"tcpinfo_snd_cwnd", "time_iso8601", "time_local", "uid_got",
	"uid_reset", "uid_set", "upstream_addr", "upstream_bytes_received",
	"upstream_bytes_sent", "upstream_cache_key", "upstream_cache_status",
	"upstream_connect_time", "upstream_first_byte_time",
	"upstream_header_time", "upstream_last_server_name",
	"upstream_queue_time", "upstream_response_length",
	"upstream_response_time", "upstream_session_time", "upstream_status",
	"uri",
};

/* Families: any name after the prefix ($http_user_agent, $arg_id). */
static const char *const nginx_var_families[] = {
	"arg_", "cookie_", "http_", "jwt_claim_", "jwt_header_",
	"proxy_protocol_tlv_", "sent_http_", "sent_trailer_",
	"upstream_cookie_", "upstream_http_", "upstream_trailer_",
};

#define NGINX_NELEMS(a) (sizeof(a) / sizeof((a)[0]))

/* Whether var[0..len) is one of nginx's; else *near is the nearest of
 * nginx's within a misspelling (NULL: none): one edit, two in a long name.
 * Short names of one's own are often near one of nginx's ($msg, $msec):
 * those two edits away are not taken for misspellings. */
static int
nginx_var_known(const char *var, size_t len, const char **near)
{
	size_t best = SIZE_MAX, typo = len >= 10 ? 2 : 1;

	*near = NULL;
	/* $1..$9: a regex's captures */
	if (len > 0 && var[0] >= '0' && var[0] <= '9')
		return 1;
	for (size_t i = 0; i < NGINX_NELEMS(nginx_var_families); i++) {
		size_t n = strlen(nginx_var_families[i]);

		if (len > n && memcmp(var, nginx_var_families[i], n) == 0)
			return 1;
	}
	for (size_t i = 0; i < NGINX_NELEMS(nginx_known_vars); i++) {
		const char *k = nginx_known_vars[i];

		if (strlen(k) == len && memcmp(k, var, len) == 0)
			return 1;
		if (nearest_closer(var, len, k, strlen(k), typo, &best))
			*near = k;
	}
	return 0;
}

/* Up to 24 bytes of the format from at on, for a sentence. */
static int
nginx_lint_where(const char *format, size_t at)
{
	size_t n = strlen(format + at);

	return n > 24 ? 24 : (int)n;
}

/* Every "[" closed by "]", every '"' by the next. */
static int
nginx_lint_pairs(const char *format, char *err, size_t errlen)
{
	size_t open = SIZE_MAX, quote = SIZE_MAX;

	for (size_t i = 0; format[i] != '\0'; i++) {
		if (format[i] == '"')
			quote = quote == SIZE_MAX ? i : SIZE_MAX;
		else if (format[i] == '[' && open == SIZE_MAX)
			open = i;
		else if (format[i] == '[')
			return err_set(err, errlen, -EINVAL, "log_format: the "
			    "\"[\" at offset %zu (\"%.*s\") comes before the "
			    "one at offset %zu is closed by \"]\"", i,
			    nginx_lint_where(format, i), format + i, open);
		else if (format[i] == ']' && open == SIZE_MAX)
			return err_set(err, errlen, -EINVAL, "log_format: the "
			    "\"]\" at offset %zu (\"%.*s\") closes no \"[\"", i,
			    nginx_lint_where(format, i), format + i);
		else if (format[i] == ']')
			open = SIZE_MAX;
	}
	if (open != SIZE_MAX)
		return err_set(err, errlen, -EINVAL, "log_format: the \"[\" at "
		    "offset %zu (\"%.*s\") is never closed by \"]\"", open,
		    nginx_lint_where(format, open), format + open);
	if (quote != SIZE_MAX)
		return err_set(err, errlen, -EINVAL, "log_format: the '\"' at "
		    "offset %zu (\"%.*s\") is never closed by another", quote,
		    nginx_lint_where(format, quote), format + quote);
	return 0;
}

int
nginx_lint(const char *format, char *note, size_t notelen, char *err,
    size_t errlen)
{
	size_t used = 0;
	const char *near;
	int r;

	if (notelen > 0)
		note[0] = '\0';
	if ((r = nginx_lint_pairs(format, err, errlen)) < 0)
		return r;
	for (const char *p = strchr(format, '$'); p != NULL;
	    p = strchr(p + 1, '$')) {
		size_t len = 0;

		/* ${name}: taken as written */
		if (p[1] == '{')
			continue;
		while (nginx_is_name_char(p[1 + len]))
			len++;
		if (len == 0 || nginx_var_known(p + 1, len, &near))
			continue;
		if (near != NULL)
			return err_set(err, errlen, -EINVAL, "log_format: $%.*s "
			    "is not an nginx variable; did you mean $%s? (one "
			    "of your own, from map or set, is written "
			    "${%.*s})", (int)len, p + 1, near, (int)len, p + 1);
		if (used < notelen)
			used += (size_t)snprintf(note + used, notelen - used,
			    "%s$%.*s", used > 0 ? ", " : "log_format: ",
			    (int)len, p + 1);
	}
	if (used > 0 && used < notelen)
		snprintf(note + used, notelen - used, ": not among nginx's "
		    "variables, so taken as your own (map, set, a module's)");
	return 0;
}
