package kedge.peer;

import java.time.LocalDate;
import java.time.ZoneId;

import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.streaming.api.functions.sink.filesystem.BucketAssigner;
import org.apache.flink.streaming.api.functions.sink.filesystem.bucketassigners.SimpleVersionedStringSerializer;

/**
 * The row's hour by event time, as kedge files it: "dt=YYYYMMDD/hr=HH" of
 * time_local in the table's zone.  Flink's own DateTimeBucketAssigner
 * buckets by the time the row is processed, which files late and replayed
 * rows under the wrong hour.  The last hour's name is kept, as rows come
 * mostly in order.
 */
public class EventHourAssigner implements BucketAssigner<NginxRow, String> {
	private static final long serialVersionUID = 1L;

	private final String zone;
	private transient LocalClock clock;
	private transient long hour = Long.MIN_VALUE;
	private transient String name;

	public EventHourAssigner(String zone) {
		this.zone = zone;
	}

	@Override
	public String getBucketId(NginxRow row, Context context) {
		if (clock == null)
			clock = new LocalClock(ZoneId.of(zone));
		long h = Math.floorDiv(clock.local(row.timeLocal), 3600L);

		if (h != hour) {
			LocalDate d = LocalDate.ofEpochDay(Math.floorDiv(h, 24L));

			hour = h;
			name = String.format("dt=%04d%02d%02d/hr=%02d", d.getYear(),
				d.getMonthValue(), d.getDayOfMonth(),
				Math.floorMod(h, 24L));
		}
		return name;
	}

	@Override
	public SimpleVersionedSerializer<String> getSerializer() {
		return SimpleVersionedStringSerializer.INSTANCE;
	}
}
