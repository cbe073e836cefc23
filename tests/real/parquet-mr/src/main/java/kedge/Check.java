/*
 * Reads a Parquet file with parquet-mr and prints, as one JSON document,
 * what it read: the columns' types, the key-value metadata, per row group
 * and column chunk the codec, encodings and statistics, and every row (an
 * array per row, null for NULL, timestamps as their INT64 microseconds).
 * tests/real/parquet_check.py compares it with the rows written.
 */
package kedge;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.parquet.column.statistics.Statistics;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.hadoop.example.GroupReadSupport;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;

public final class Check {
	private static String str(String s) {
		StringBuilder b = new StringBuilder("\"");
		for (int i = 0; i < s.length(); i++) {
			char c = s.charAt(i);
			if (c == '"' || c == '\\')
				b.append('\\').append(c);
			else if (c < 0x20)
				b.append(String.format("\\u%04x", (int) c));
			else
				b.append(c);
		}
		return b.append('"').toString();
	}

	private static String value(Object v) {
		if (v == null)
			return "null";
		if (v instanceof Binary)
			return str(((Binary) v).toStringUsingUTF8());
		return v.toString();
	}

	private static String cell(Group g, MessageType schema, int i) {
		if (g.getFieldRepetitionCount(i) == 0)
			return "null";
		PrimitiveType t = schema.getType(i).asPrimitiveType();
		switch (t.getPrimitiveTypeName()) {
		case BINARY:
			return str(g.getBinary(i, 0).toStringUsingUTF8());
		case INT64:
			return Long.toString(g.getLong(i, 0));
		case INT32:
			return Integer.toString(g.getInteger(i, 0));
		case DOUBLE:
			return Double.toString(g.getDouble(i, 0));
		case BOOLEAN:
			return Boolean.toString(g.getBoolean(i, 0));
		default:
			throw new IllegalStateException("type " + t);
		}
	}

	/* Check FILE prints what it reads in FILE; Check FILE OUT [FILE OUT
	 * ...] writes it to each OUT, in one process for many files. */
	public static void main(String[] args) throws Exception {
		Configuration conf = new Configuration();
		if (args.length == 1) {
			PrintStream out = new PrintStream(System.out, false,
			    StandardCharsets.UTF_8);
			read(conf, new Path(args[0]), out);
			out.flush();
			return;
		}
		if (args.length % 2 != 0)
			throw new IllegalArgumentException(
			    "usage: Check FILE | Check FILE OUT [FILE OUT ...]");
		for (int i = 0; i < args.length; i += 2)
			try (PrintStream out = new PrintStream(args[i + 1],
			    StandardCharsets.UTF_8)) {
				read(conf, new Path(args[i]), out);
			}
	}

	static void read(Configuration conf, Path path, PrintStream out)
	    throws Exception {
		ParquetMetadata md;
		try (ParquetFileReader r = ParquetFileReader.open(
		    HadoopInputFile.fromPath(path, conf))) {
			md = r.getFooter();
		}
		MessageType schema = md.getFileMetaData().getSchema();
		out.print("{\"types\":[");
		for (int i = 0; i < schema.getFieldCount(); i++)
			out.print((i > 0 ? "," : "") + str(schema.getType(i).toString()));
		out.print("],\"kv\":{");
		int n = 0;
		for (Map.Entry<String, String> e :
		    md.getFileMetaData().getKeyValueMetaData().entrySet())
			out.print((n++ > 0 ? "," : "") + str(e.getKey()) + ":" +
			    str(e.getValue()));
		out.print("},\"groups\":[");
		n = 0;
		for (BlockMetaData b : md.getBlocks()) {
			out.print((n++ > 0 ? "," : "") + "{\"rows\":" + b.getRowCount() +
			    ",\"columns\":[");
			int m = 0;
			for (ColumnChunkMetaData c : b.getColumns()) {
				Statistics<?> s = c.getStatistics();
				boolean mm = s.hasNonNullValue();
				out.print((m++ > 0 ? "," : "") + "{\"codec\":" +
				    str(c.getCodec().name()) + ",\"encodings\":" +
				    str(c.getEncodings().toString()) +
				    ",\"null_count\":" + s.getNumNulls() +
				    ",\"min\":" + (mm ? value(s.genericGetMin()) : "null") +
				    ",\"max\":" + (mm ? value(s.genericGetMax()) : "null") +
				    "}");
			}
			out.print("]}");
		}
		out.print("],\"rows\":[");
		n = 0;
		try (ParquetReader<Group> reader = ParquetReader.builder(
		    new GroupReadSupport(), path).withConf(conf).build()) {
			Group g;
			while ((g = reader.read()) != null) {
				out.print((n++ > 0 ? "," : "") + "[");
				for (int i = 0; i < schema.getFieldCount(); i++)
					out.print((i > 0 ? "," : "") + cell(g, schema, i));
				out.print("]");
			}
		}
		out.println("]}");
	}
}
