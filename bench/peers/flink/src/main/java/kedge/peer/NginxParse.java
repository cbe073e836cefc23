package kedge.peer;

import java.nio.charset.StandardCharsets;
import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.time.format.ResolverStyle;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.flink.api.common.accumulators.LongCounter;
import org.apache.flink.api.common.accumulators.LongMaximum;
import org.apache.flink.api.common.accumulators.LongMinimum;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichFlatMapFunction;
import org.apache.flink.util.Collector;

/**
 * The UDTF: a Kafka record's value, one nginx line in the combined
 * log_format, into one NginxRow, as kedge's nginx UDTF reads it: each
 * variable runs to the first place its following literal occurs (the
 * atomic groups of the precompiled pattern), a value that is exactly "-"
 * is NULL, escape=default's \xHH are undone, status and body_bytes_sent
 * are 64-bit integers, time_local a time with its offset.  A line that does
 * not match, or whose typed values do not parse, or whose time_local is
 * NULL, is a reject: counted, as kedge counts it, not written.  One row
 * object and one Matcher serve every record.
 *
 * Accumulators, per job: "records", "rows", "rejects", and "first_ns" and
 * "last_ns", System.nanoTime() when the first record arrived and once the
 * last one's row was handed on (to the chained sink's writer), as kedge
 * times the first record to the last.
 */
public class NginxParse extends RichFlatMapFunction<byte[], NginxRow> {
	private static final long serialVersionUID = 1L;

	/* $remote_addr - $remote_user [$time_local] "$request" $status
	 * $body_bytes_sent "$http_referer" "$http_user_agent" */
	private static final Pattern COMBINED = Pattern.compile(
		"(?>(.*?) - )(?>(.*?) \\[)(?>(.*?)\\] \")(?>(.*?)\" )" +
		"(?>(.*?) )(?>(.*?) \")(?>(.*?)\" \")(?>(.*?)\")",
		Pattern.DOTALL);
	private static final DateTimeFormatter TIME_LOCAL =
		DateTimeFormatter.ofPattern("dd/MMM/uuuu:HH:mm:ss Z", Locale.ENGLISH)
			.withResolverStyle(ResolverStyle.STRICT);

	private transient Matcher matcher;
	private transient NginxRow row;
	private transient StringBuilder unescaped;
	private transient LongCounter records, rows, rejects;
	private transient LongMinimum firstNs;
	private transient LongMaximum lastNs;
	private transient long first, last;

	@Override
	public void open(OpenContext context) {
		matcher = COMBINED.matcher("");
		row = new NginxRow();
		unescaped = new StringBuilder();
		records = new LongCounter();
		rows = new LongCounter();
		rejects = new LongCounter();
		firstNs = new LongMinimum();
		lastNs = new LongMaximum();
		getRuntimeContext().addAccumulator("records", records);
		getRuntimeContext().addAccumulator("rows", rows);
		getRuntimeContext().addAccumulator("rejects", rejects);
		getRuntimeContext().addAccumulator("first_ns", firstNs);
		getRuntimeContext().addAccumulator("last_ns", lastNs);
	}

	@Override
	public void flatMap(byte[] value, Collector<NginxRow> out) {
		if (first == 0)
			first = System.nanoTime();
		records.add(1L);
		if (parse(value)) {
			rows.add(1L);
			out.collect(row);
		} else {
			rejects.add(1L);
		}
		last = System.nanoTime();
	}

	@Override
	public void close() {
		if (first != 0) {
			firstNs.add(first);
			lastNs.add(last);
		}
	}

	/* Fills row from the line; false when it is a reject. */
	private boolean parse(byte[] value) {
		int len = value.length;

		/* kedge's nginx UDTF leaves out one trailing \n or \r\n */
		if (len > 0 && value[len - 1] == '\n') {
			len--;
			if (len > 0 && value[len - 1] == '\r')
				len--;
		}
		if (len == 0 || !matcher.reset(new String(value, 0, len,
		    StandardCharsets.ISO_8859_1)).matches())
			return false;
		String time = matcher.group(3);
		if (time.length() != 26)
			return false; /* not a time; "-", the event time NULL */
		try {
			row.timeLocal = OffsetDateTime.parse(time, TIME_LOCAL)
				.toEpochSecond();
			row.status = integer(matcher.group(5));
			row.bodyBytesSent = integer(matcher.group(6));
		} catch (DateTimeParseException | NumberFormatException e) {
			return false;
		}
		row.remoteAddr = string(matcher.group(1));
		row.remoteUser = string(matcher.group(2));
		row.request = string(matcher.group(4));
		row.httpReferer = string(matcher.group(7));
		row.httpUserAgent = string(matcher.group(8));
		return true;
	}

	/* An int64 column: null for "-", else an optional '-' and digits. */
	private static Long integer(String s) {
		if (s.equals("-"))
			return null;
		int i = s.startsWith("-") ? 1 : 0;
		if (i == s.length())
			throw new NumberFormatException(s);
		for (; i < s.length(); i++)
			if (s.charAt(i) < '0' || s.charAt(i) > '9')
				throw new NumberFormatException(s);
		return Long.parseLong(s);
	}

	/* A string column: null for "-", else with nginx's \xHH undone (any
	 * other backslash is itself). */
	private String string(String s) {
		if (s.equals("-"))
			return null;
		int bs = s.indexOf('\\');
		if (bs < 0)
			return s;
		unescaped.setLength(0);
		unescaped.append(s, 0, bs);
		for (int i = bs; i < s.length(); i++) {
			char c = s.charAt(i);
			int hi, lo;
			if (c == '\\' && i + 3 < s.length() && s.charAt(i + 1) == 'x' &&
			    (hi = hex(s.charAt(i + 2))) >= 0 &&
			    (lo = hex(s.charAt(i + 3))) >= 0) {
				unescaped.append((char) (hi << 4 | lo));
				i += 3;
			} else {
				unescaped.append(c);
			}
		}
		return unescaped.toString();
	}

	private static int hex(char c) {
		return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ?
		    c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
	}
}
