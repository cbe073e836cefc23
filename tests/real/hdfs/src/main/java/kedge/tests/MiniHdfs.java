package kedge.tests;

import java.io.BufferedReader;
import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.Map;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.RemoteIterator;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.protocol.HdfsConstants;
import org.apache.hadoop.hdfs.protocol.OpenFileEntry;
import org.apache.hadoop.hdfs.protocol.OpenFilesIterator.OpenFilesType;
import org.apache.hadoop.security.UserGroupInformation;

/**
 * A Kerberized HDFS for the tests: a MiniDFSCluster of one NameNode and
 * two DataNodes, WebHDFS on, SPNEGO on the NameNode's web port, block
 * access tokens on, all on 127.0.0.1.
 *
 * Usage: MiniHdfs DIR REALM KEYTAB RPC_PORT HTTP_PORT
 *
 * DIR holds the cluster's storage (DIR/data), the configuration a client
 * or HttpFS needs (DIR/conf/core-site.xml, hdfs-site.xml), and the control
 * socket DIR/ctl.  KEYTAB has hdfs/localhost and HTTP/localhost of REALM.
 * Once the cluster is up, DIR/ready holds "rpc PORT", "http PORT" and
 * "https PORT" (0 without ssl-server.xml on the class path; the port
 * changes when the NameNode restarts).
 *
 * The control socket takes one command a connection, a line, and answers
 * one line, "ok ..." or "error ...": safemode enter|leave|get; quota PATH
 * BYTES|clear (a space quota); mkdir PATH; chmod [-R] OCTAL PATH; chown
 * USER[:GROUP] PATH; datanode stop|start INDEX; namenode restart [SECONDS];
 * openfiles PATH; exists PATH; hold PATH (opens PATH for writing as
 * another client and keeps it open, holding its lease); release PATH; stop (shuts down and exits).  They run as
 * the HDFS superuser (hdfs).
 */
public final class MiniHdfs {
	private final Path dir;
	private final MiniDFSCluster cluster;
	private final Map<Integer, MiniDFSCluster.DataNodeProperties> stopped =
		new HashMap<>();
	private final String[] dnNames = new String[2];
	private final Map<String, org.apache.hadoop.fs.FSDataOutputStream> held = new HashMap<>();
	private org.apache.hadoop.fs.FileSystem holder;

	private MiniHdfs(Path dir, MiniDFSCluster cluster) {
		this.dir = dir;
		this.cluster = cluster;
		for (int i = 0; i < dnNames.length; i++)
			dnNames[i] = cluster.getDataNodes().get(i).getDatanodeId().getXferAddr();
	}

	private static Configuration conf(Path dir, String realm, String keytab) {
		Configuration c = new Configuration();
		String hdfs = "hdfs/localhost@" + realm;
		String http = "HTTP/localhost@" + realm;
		c.set("hadoop.security.authentication", "kerberos");
		c.setBoolean("hadoop.security.authorization", true);
		c.setBoolean("hadoop.kerberos.keytab.login.autorenewal.enabled", true);
		c.set("dfs.namenode.kerberos.principal", hdfs);
		c.set("dfs.namenode.keytab.file", keytab);
		c.set("dfs.datanode.kerberos.principal", hdfs);
		c.set("dfs.datanode.keytab.file", keytab);
		c.set("dfs.web.authentication.kerberos.principal", http);
		c.set("dfs.web.authentication.kerberos.keytab", keytab);
		c.set("hadoop.http.authentication.type", "kerberos");
		c.set("hadoop.http.authentication.kerberos.principal", http);
		c.set("hadoop.http.authentication.kerberos.keytab", keytab);
		c.setBoolean("hadoop.http.authentication.simple.anonymous.allowed", false);
		c.set("hadoop.http.authentication.signature.secret.file",
			dir.resolve("http-signature.secret").toString());
		c.setBoolean("dfs.block.access.token.enable", true);
		/* A DataNode of a secure cluster wants privileged ports or SASL
		 * on data transfer with HTTPS; the tests run unprivileged, on
		 * plain HTTP. */
		c.setBoolean("ignore.secure.ports.for.testing", true);
		/* HTTPS too when ssl-server.xml (the key store) is on the
		 * class path, on free ports */
		if (MiniHdfs.class.getClassLoader().getResource("ssl-server.xml") != null) {
			c.set("dfs.http.policy", "HTTP_AND_HTTPS");
			c.set("dfs.namenode.https-address", "127.0.0.1:0");
			c.set("dfs.datanode.https.address", "127.0.0.1:0");
		} else {
			c.set("dfs.http.policy", "HTTP_ONLY");
		}
		c.setBoolean("dfs.webhdfs.enabled", true);
		c.setInt("dfs.replication", 2);
		c.setInt("dfs.namenode.safemode.extension", 0);
		c.setInt("dfs.heartbeat.interval", 1);
		c.setInt("dfs.namenode.heartbeat.recheck-interval", 5000);
		/* Entries a page of a listing (1000 by default): few, so that
		 * a client's LISTSTATUS_BATCH takes pages of an hour's files */
		c.setInt("dfs.ls.limit", 8);
		/* HttpFS logs in as httpfs/localhost and acts for the users. */
		c.set("hadoop.proxyuser.httpfs.hosts", "*");
		c.set("hadoop.proxyuser.httpfs.groups", "*");
		c.set("hadoop.proxyuser.httpfs.users", "*");
		c.set("dfs.namenode.name.dir", dir.resolve("data/name").toString());
		c.set(MiniDFSCluster.HDFS_MINIDFS_BASEDIR, dir.resolve("data").toString());
		return c;
	}

	public static void main(String[] args) throws Exception {
		if (args.length != 5) {
			System.err.println("usage: MiniHdfs DIR REALM KEYTAB RPC_PORT HTTP_PORT");
			System.exit(2);
		}
		Path dir = Path.of(args[0]).toAbsolutePath();
		Configuration c = conf(dir, args[1], args[2]);
		UserGroupInformation.setConfiguration(c);
		UserGroupInformation.loginUserFromKeytab("hdfs/localhost@" + args[1], args[2]);
		MiniDFSCluster cluster = new MiniDFSCluster.Builder(c)
			.numDataNodes(2)
			.nameNodePort(Integer.parseInt(args[3]))
			.nameNodeHttpPort(Integer.parseInt(args[4]))
			.build();
		cluster.waitActive();
		DistributedFileSystem fs = cluster.getFileSystem();
		org.apache.hadoop.fs.Path tmp = new org.apache.hadoop.fs.Path("/tmp");
		fs.mkdirs(tmp);
		fs.setPermission(tmp, new FsPermission((short) 01777));

		Files.createDirectories(dir.resolve("conf"));
		Configuration out = new Configuration(cluster.getConfiguration(0));
		try (OutputStream o = new FileOutputStream(dir.resolve("conf/hdfs-site.xml").toFile())) {
			out.writeXml(o);
		}
		Configuration core = new Configuration(false);
		core.set("fs.defaultFS", "hdfs://127.0.0.1:" + cluster.getNameNodePort());
		core.set("hadoop.security.authentication", "kerberos");
		try (OutputStream o = new FileOutputStream(dir.resolve("conf/core-site.xml").toFile())) {
			core.writeXml(o);
		}

		MiniHdfs m = new MiniHdfs(dir, cluster);
		Path sock = dir.resolve("ctl");
		Files.deleteIfExists(sock);
		ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
		server.bind(UnixDomainSocketAddress.of(sock));
		Path ready = dir.resolve("ready.tmp");
		java.net.InetSocketAddress https = cluster.getNameNode().getHttpsAddress();
		Files.writeString(ready, "rpc " + cluster.getNameNodePort() + "\nhttp "
			+ cluster.getNameNode().getHttpAddress().getPort() + "\nhttps "
			+ (https != null ? https.getPort() : 0) + "\n");
		Files.move(ready, dir.resolve("ready"));
		System.out.println("MiniHdfs: up");
		Runtime.getRuntime().addShutdownHook(new Thread(() -> cluster.shutdown()));
		for (;;) {
			try (SocketChannel ch = server.accept()) {
				BufferedReader in = new BufferedReader(new InputStreamReader(
					Channels.newInputStream(ch), StandardCharsets.UTF_8));
				PrintWriter w = new PrintWriter(Channels.newOutputStream(ch), true,
					StandardCharsets.UTF_8);
				String line = in.readLine();
				if (line == null)
					continue;
				String answer;
				try {
					answer = "ok " + m.command(line.trim().split("\\s+"));
				} catch (Exception e) {
					answer = "error " + e.toString().replace('\n', ' ');
				}
				System.out.println("MiniHdfs: " + line + " -> " + answer);
				w.println(answer);
				if (line.trim().equals("stop")) {
					Files.deleteIfExists(sock);
					System.exit(0);
				}
			}
		}
	}

	private static org.apache.hadoop.fs.Path p(String s) {
		return new org.apache.hadoop.fs.Path(s);
	}

	private static void chmodTree(DistributedFileSystem fs, org.apache.hadoop.fs.Path path,
			FsPermission perm) throws IOException {
		fs.setPermission(path, perm);
		if (!fs.getFileStatus(path).isDirectory())
			return;
		for (FileStatus st : fs.listStatus(path))
			chmodTree(fs, st.getPath(), perm);
	}

	private String command(String[] a) throws Exception {
		DistributedFileSystem fs = cluster.getFileSystem();
		switch (a[0]) {
		case "safemode":
			switch (a[1]) {
			case "enter":
				fs.setSafeMode(HdfsConstants.SafeModeAction.SAFEMODE_ENTER);
				return "safe mode is ON";
			case "leave":
				fs.setSafeMode(HdfsConstants.SafeModeAction.SAFEMODE_LEAVE);
				return "safe mode is OFF";
			default:
				return fs.setSafeMode(HdfsConstants.SafeModeAction.SAFEMODE_GET)
					? "safe mode is ON" : "safe mode is OFF";
			}
		case "quota":
			if (a[2].equals("clear")) {
				fs.setQuota(p(a[1]), HdfsConstants.QUOTA_DONT_SET,
					HdfsConstants.QUOTA_RESET);
				return "space quota of " + a[1] + " cleared";
			}
			fs.setQuota(p(a[1]), HdfsConstants.QUOTA_DONT_SET, Long.parseLong(a[2]));
			return "space quota of " + a[1] + " is " + a[2];
		case "mkdir":
			fs.mkdirs(p(a[1]));
			return a[1];
		case "chmod":
			if (a[1].equals("-R")) {
				chmodTree(fs, p(a[3]), new FsPermission((short) Integer.parseInt(a[2], 8)));
				return a[3] + " " + fs.getFileStatus(p(a[3])).getPermission() + ", and all below";
			}
			fs.setPermission(p(a[2]), new FsPermission((short) Integer.parseInt(a[1], 8)));
			return a[2] + " " + fs.getFileStatus(p(a[2])).getPermission();
		case "chown": {
			String[] ug = a[1].split(":", 2);
			fs.setOwner(p(a[2]), ug[0], ug.length > 1 ? ug[1] : null);
			FileStatus st = fs.getFileStatus(p(a[2]));
			return a[2] + " " + st.getOwner() + ":" + st.getGroup();
		}
		case "exists":
			return fs.exists(p(a[1])) ? "yes" : "no";
		case "datanode": {
			int i = Integer.parseInt(a[2]);
			if (a[1].equals("stop")) {
				if (stopped.containsKey(i))
					throw new IOException("datanode " + i + " is stopped already");
				stopped.put(i, cluster.stopDataNode(dnNames[i]));
				return "datanode " + i + " (" + dnNames[i] + ") stopped";
			}
			MiniDFSCluster.DataNodeProperties dn = stopped.remove(i);
			if (dn == null)
				throw new IOException("datanode " + i + " runs");
			cluster.restartDataNode(dn, true);
			cluster.waitActive();
			return "datanode " + i + " started";
		}
		case "namenode": {
			/* away for SECONDS before it starts again, so that clients
			 * meet it away whatever their timing */
			long away = a.length > 2 ? Long.parseLong(a[2]) : 0;
			if (away > 0) {
				cluster.shutdownNameNode(0);
				Thread.sleep(away * 1000);
			}
			cluster.restartNameNode(0, true);
			return "namenode restarted";
		}
		case "openfiles": {
			StringBuilder b = new StringBuilder();
			RemoteIterator<OpenFileEntry> it = fs.listOpenFiles(
				EnumSet.of(OpenFilesType.ALL_OPEN_FILES), a[1]);
			while (it.hasNext()) {
				OpenFileEntry e = it.next();
				b.append(e.getFilePath()).append(' ').append(e.getClientName()).append(';');
			}
			return b.toString();
		}
		case "hold": {
			/* a writer of another client, which keeps its lease */
			if (holder == null)
				holder = org.apache.hadoop.fs.FileSystem.newInstance(
					cluster.getConfiguration(0));
			org.apache.hadoop.fs.FSDataOutputStream o = holder.create(p(a[1]), true);
			o.write('x');
			o.hflush();
			held.put(a[1], o);
			return a[1] + " open for writing";
		}
		case "release": {
			org.apache.hadoop.fs.FSDataOutputStream o = held.remove(a[1]);
			if (o == null)
				throw new IOException(a[1] + " is not held");
			try {
				o.close();
			} catch (IOException e) {
				return a[1] + " released (" + e.getMessage() + ")";
			}
			return a[1] + " released";
		}
		case "stop":
			cluster.shutdown();
			return "stopped";
		default:
			throw new IOException("unknown command " + a[0]);
		}
	}
}
