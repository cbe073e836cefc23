package kedge.peer;

import java.util.Map;

import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.JobManagerOptions;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.connector.file.sink.FileSink;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.core.fs.Path;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.filesystem.rollingpolicies.DefaultRollingPolicy;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * The Flink job kedge's users run for kedge's work, written here to measure
 * kedge against (scripts/bench-real.sh) and kept running by
 * tests/integration/real_flink_peer.sh:
 *
 *   KafkaSource (every partition of one topic from the earliest offset,
 *   bounded to the offsets that are the latest when it starts, so it ends)
 *   → NginxParse (a flatMap: one nginx combined line into one typed row,
 *   rejects counted) → a row-format FileSink of Hive text under
 *   OUT/dt=YYYYMMDD/hr=HH by the row's time_local in ZONE
 *   (EventHourAssigner), Flink's default rolling policy (128 MiB, 60 s).
 *   Checkpoints every 30 s, exactly once; object reuse.
 *
 * It runs in this JVM's MiniCluster, its REST endpoint on 127.0.0.1 at a
 * free port, no web UI; its checkpoints are kept in the JobManager's memory,
 * so a crash of this process loses them (the files the sink committed
 * stay).  When the job ends it prints one line,
 *
 *   flink peer: N records, N rows, N rejects; S s from the first record
 *   to the last; parallelism P
 *
 * and exits 0; it exits 1 with Flink's error, 2 on a usage mistake.
 *
 *   java kedge.peer.FlinkPeer --brokers HOST:PORT --topic T --out DIR
 *        --zone ZONE [--parallelism P] [--group G]
 */
public final class FlinkPeer {
	private static final long CHECKPOINT_MS = 30_000L;

	private FlinkPeer() {
	}

	/* The record's value as it is; an empty record for a null one. */
	static final class Values implements KafkaRecordDeserializationSchema<byte[]> {
		private static final long serialVersionUID = 1L;
		private static final byte[] EMPTY = new byte[0];

		@Override
		public void deserialize(ConsumerRecord<byte[], byte[]> r,
		    Collector<byte[]> out) {
			out.collect(r.value() == null ? EMPTY : r.value());
		}

		@Override
		public TypeInformation<byte[]> getProducedType() {
			return PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO;
		}
	}

	private static void usage() {
		System.err.println("usage: FlinkPeer --brokers HOST:PORT --topic T " +
		    "--out DIR --zone ZONE [--parallelism P] [--group G]");
		System.exit(2);
	}

	public static void main(String[] args) throws Exception {
		String brokers = null, topic = null, out = null, zone = null;
		String group = "kedge-flink-peer";
		int parallelism = 1;

		for (int i = 0; i + 1 < args.length; i += 2) {
			switch (args[i]) {
			case "--brokers": brokers = args[i + 1]; break;
			case "--topic": topic = args[i + 1]; break;
			case "--out": out = args[i + 1]; break;
			case "--zone": zone = args[i + 1]; break;
			case "--parallelism": parallelism = Integer.parseInt(args[i + 1]); break;
			case "--group": group = args[i + 1]; break;
			default: usage();
			}
		}
		if (args.length % 2 != 0 || brokers == null || topic == null ||
		    out == null || zone == null || parallelism < 1)
			usage();

		Configuration conf = new Configuration();
		conf.set(RestOptions.ADDRESS, "127.0.0.1");
		conf.set(RestOptions.BIND_ADDRESS, "127.0.0.1");
		conf.set(RestOptions.BIND_PORT, "0");
		conf.set(JobManagerOptions.ADDRESS, "127.0.0.1");
		conf.set(JobManagerOptions.BIND_HOST, "127.0.0.1");
		conf.set(TaskManagerOptions.HOST, "127.0.0.1");
		conf.set(TaskManagerOptions.BIND_HOST, "127.0.0.1");
		StreamExecutionEnvironment env =
		    StreamExecutionEnvironment.createLocalEnvironment(parallelism, conf);
		env.enableCheckpointing(CHECKPOINT_MS); /* exactly once, the default */
		env.getConfig().enableObjectReuse();

		KafkaSource<byte[]> source = KafkaSource.<byte[]>builder()
		    .setBootstrapServers(brokers)
		    .setTopics(topic)
		    .setGroupId(group)
		    .setStartingOffsets(OffsetsInitializer.earliest())
		    .setBounded(OffsetsInitializer.latest())
		    .setDeserializer(new Values())
		    .build();
		FileSink<NginxRow> sink = FileSink
		    .forRowFormat(new Path(out), new HiveTextEncoder(zone))
		    .withBucketAssigner(new EventHourAssigner(zone))
		    .withRollingPolicy(DefaultRollingPolicy.builder().build())
		    .build();
		env.fromSource(source, WatermarkStrategy.noWatermarks(), "kafka")
		    .flatMap(new NginxParse()).name("nginx")
		    .sinkTo(sink).name("hive-text");

		JobExecutionResult result = env.execute("kedge flink peer");
		Map<String, Object> acc = result.getAllAccumulatorResults();
		long records = (Long) acc.get("records");
		double seconds = records == 0 ? 0 :
		    ((Long) acc.get("last_ns") - (Long) acc.get("first_ns")) / 1e9;
		System.out.printf("flink peer: %d records, %d rows, %d rejects; " +
		    "%.3f s from the first record to the last; parallelism %d%n",
		    records, (Long) acc.get("rows"), (Long) acc.get("rejects"),
		    seconds, parallelism);
	}
}
