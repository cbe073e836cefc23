package kedge.peer;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.Arrays;

import org.apache.flink.api.common.serialization.Encoder;

/**
 * A row as kedge's hive-text writes it (docs/output.md): the columns
 * separated by \001, NULL as \N, a backslash before \001 and before a
 * backslash, newline and carriage return as \n and \r, time_local as
 * "YYYY-MM-DD HH:MM:SS" in the table's zone, one row a line.  Each char is
 * one byte (NginxRow holds ISO-8859-1).  The row is built in one buffer and
 * written at once.
 */
public class HiveTextEncoder implements Encoder<NginxRow> {
	private static final long serialVersionUID = 1L;
	private static final byte SEP = 1;

	private final String zone;
	private transient LocalClock clock;
	private transient byte[] buf;
	private transient int len;
	private transient long day = Long.MIN_VALUE;
	private transient byte[] date;

	public HiveTextEncoder(String zone) {
		this.zone = zone;
	}

	@Override
	public void encode(NginxRow row, OutputStream out) throws IOException {
		if (clock == null) {
			clock = new LocalClock(ZoneId.of(zone));
			buf = new byte[4096];
		}
		len = 0;
		string(row.remoteAddr);
		put(SEP);
		string(row.remoteUser);
		put(SEP);
		time(row.timeLocal);
		put(SEP);
		string(row.request);
		put(SEP);
		integer(row.status);
		put(SEP);
		integer(row.bodyBytesSent);
		put(SEP);
		string(row.httpReferer);
		put(SEP);
		string(row.httpUserAgent);
		put((byte) '\n');
		out.write(buf, 0, len);
	}

	private void put(byte b) {
		if (len == buf.length)
			buf = Arrays.copyOf(buf, buf.length * 2);
		buf[len++] = b;
	}

	private void ascii(String s) {
		for (int i = 0; i < s.length(); i++)
			put((byte) s.charAt(i));
	}

	private void string(String s) {
		if (s == null) {
			put((byte) '\\');
			put((byte) 'N');
			return;
		}
		for (int i = 0; i < s.length(); i++) {
			char c = s.charAt(i);

			if (c == SEP || c == '\\') {
				put((byte) '\\');
				put((byte) c);
			} else if (c == '\n' || c == '\r') {
				put((byte) '\\');
				put((byte) (c == '\n' ? 'n' : 'r'));
			} else {
				put((byte) c);
			}
		}
	}

	private void integer(Long v) {
		if (v == null)
			string(null);
		else
			ascii(Long.toString(v));
	}

	/* "YYYY-MM-DD HH:MM:SS", the date kept from the row before */
	private void time(long epochSecond) {
		long local = clock.local(epochSecond);
		long d = Math.floorDiv(local, 86400L);
		int s = (int) Math.floorMod(local, 86400L);

		if (d != day) {
			day = d;
			date = LocalDate.ofEpochDay(d).toString().getBytes(
				StandardCharsets.US_ASCII);
		}
		for (byte b : date)
			put(b);
		put((byte) ' ');
		two(s / 3600);
		put((byte) ':');
		two(s / 60 % 60);
		put((byte) ':');
		two(s % 60);
	}

	private void two(int v) {
		put((byte) ('0' + v / 10));
		put((byte) ('0' + v % 10));
	}
}
