package kedge.peer;

import java.time.Instant;
import java.time.ZoneId;
import java.time.zone.ZoneOffsetTransition;
import java.time.zone.ZoneRules;

/**
 * Epoch seconds to the local time of a zone, as seconds since
 * 1970-01-01T00:00 local: the zone's offset is looked up once for the span
 * between two of its transitions, not for every row.  Not thread-safe: one
 * per encoder or assigner.
 */
final class LocalClock {
	private final ZoneRules rules;
	private long from = Long.MAX_VALUE, until = Long.MIN_VALUE;
	private int offset;

	LocalClock(ZoneId zone) {
		rules = zone.getRules();
	}

	long local(long epochSecond) {
		if (epochSecond < from || epochSecond >= until) {
			Instant t = Instant.ofEpochSecond(epochSecond);
			ZoneOffsetTransition prev = rules.previousTransition(t);
			ZoneOffsetTransition next = rules.nextTransition(t);

			offset = rules.getOffset(t).getTotalSeconds();
			from = prev == null ? Long.MIN_VALUE : prev.toEpochSecond();
			until = next == null ? Long.MAX_VALUE : next.toEpochSecond();
		}
		return epochSecond + offset;
	}
}
