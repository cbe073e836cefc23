package kedge.peer;

/**
 * One row of kedge's nginx table for the combined log_format, with its
 * columns and types: strings (null for nginx's "-"), time_local as epoch
 * seconds, status and body_bytes_sent as 64-bit integers. Strings hold one
 * char per byte of the record (ISO-8859-1), so any byte survives.  A
 * Flink POJO; NginxParse emits one instance again and again (object
 * reuse).
 */
public class NginxRow {
	public String remoteAddr;
	public String remoteUser;
	public long timeLocal;
	public String request;
	public Long status;
	public Long bodyBytesSent;
	public String httpReferer;
	public String httpUserAgent;

	public NginxRow() {
	}
}
