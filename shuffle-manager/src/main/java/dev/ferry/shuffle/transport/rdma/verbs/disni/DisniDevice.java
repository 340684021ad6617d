package dev.ferry.shuffle.transport.rdma.verbs.disni;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import com.ibm.disni.RdmaPassiveEndpointGroup;
import com.ibm.disni.RdmaServerEndpoint;
import com.ibm.disni.verbs.IbvPd;
import dev.ferry.shuffle.transport.rdma.verbs.ConnectionAdmissions;
import dev.ferry.shuffle.transport.rdma.verbs.ConnectionToken;
import dev.ferry.shuffle.transport.rdma.verbs.ProtectionDomain;
import dev.ferry.shuffle.transport.rdma.verbs.VerbsConnection;
import dev.ferry.shuffle.transport.rdma.verbs.VerbsDevice;
import dev.ferry.shuffle.transport.rdma.verbs.VerbsException;
import dev.ferry.shuffle.transport.rdma.verbs.VerbsSettings;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import static java.util.Objects.requireNonNull;

/**
 * One NIC through DiSNI: a passive endpoint group (one CQ per endpoint, polled by Ferry), a server
 * endpoint bound to the NIC's own IPv4 address whose protection domain is the device's, and an
 * accept thread that keeps incoming queue pairs open so peers can READ (their READs need no
 * handler here) once the device's {@link ConnectionAdmissions} admit them ({@link GatedEndpointGroup}:
 * a refused request gets no queue pair). Outgoing connect requests carry their connection token as
 * private data ({@link DisniEndpoint#carry}). Connects run on a helper thread and are abandoned, and the endpoint closed, at
 * the deadline, because DiSNI's {@code connect} waits without one after address resolution.
 */
final class DisniDevice
        implements VerbsDevice
{
    private static final Logger log = LoggerFactory.getLogger(DisniDevice.class);
    private static final byte RETRY_COUNT = 7;
    private static final int BACKLOG = 128;

    private final String name;
    private final VerbsSettings settings;
    private final GatedEndpointGroup group;
    private final ConnectionAdmissions admissions;
    private final RdmaServerEndpoint<DisniEndpoint> server;
    private final DisniProtectionDomain protectionDomain;
    private final InetSocketAddress listenAddress;
    private final ExecutorService connector;
    private final Set<DisniEndpoint> accepted = ConcurrentHashMap.newKeySet();
    private final Set<DisniConnection> connections = ConcurrentHashMap.newKeySet();
    private final AtomicInteger nextConnectionId = new AtomicInteger();
    private final AtomicBoolean closed = new AtomicBoolean();

    DisniDevice(String name, InetSocketAddress listenAddress, VerbsSettings settings)
            throws VerbsException
    {
        this.name = requireNonNull(name, "name is null");
        this.settings = requireNonNull(settings, "settings is null");
        checkIpv4(listenAddress, "listen address of " + name);
        // A token lives as long as a connect may take: the reader asks for it right before connecting.
        this.admissions = new ConnectionAdmissions(settings.connectTimeout());
        GatedEndpointGroup createdGroup = null;
        try {
            int timeoutMillis = Math.toIntExact(Math.min(Integer.MAX_VALUE, settings.connectTimeout().toMillis()));
            createdGroup = new GatedEndpointGroup(timeoutMillis, settings.queueDepth(), 1, settings.completionQueueSize(), admissions);
            GatedEndpointGroup groupRef = createdGroup;
            createdGroup.init((id, serverSide) -> new DisniEndpoint(groupRef, id, serverSide, this::disconnected));
            // DiSNI defaults both retry counts to 0, which turns any loss into RETRY_EXC_ERR; 7 is what SparkRDMA uses.
            createdGroup.getConnParam().setRetry_count(RETRY_COUNT);
            createdGroup.getConnParam().setRnr_retry_count(RETRY_COUNT);
            // initiator_depth/responder_resources cannot be set through DiSNI 2.1: RdmaConnParam's setters throw
            // "Operation currently not supported" and NativeDispatcher._connect/_accept pass only the retry counts and
            // private data, so the depths are whatever libdisni's JNI puts in rdma_conn_param (issue 17 item 6 open).
            this.server = createdGroup.createServerEndpoint();
            server.bind(listenAddress, BACKLOG);
            IbvPd pd = server.getPd();
            if (pd == null) {
                pd = createdGroup.createProtectionDomain(server);
            }
            this.protectionDomain = new DisniProtectionDomain(name, pd, settings.maxRegionBytes());
            this.listenAddress = listenAddress.getPort() != 0 ? listenAddress : (InetSocketAddress) server.getSrcAddr();
            this.group = createdGroup;
        }
        catch (Exception e) {
            closeGroupQuietly(createdGroup);
            throw new VerbsException("Cannot open RDMA device " + name + " at " + listenAddress + " through DiSNI: " + e.getMessage()
                    + " (is the address the NIC's own IPv4 address? a wildcard finds no device)", e);
        }
        this.connector = Executors.newCachedThreadPool(runnable -> {
            Thread thread = new Thread(runnable, "ferry-disni-connect-" + name);
            thread.setDaemon(true);
            return thread;
        });
        Thread acceptor = new Thread(this::acceptLoop, "ferry-disni-accept-" + name);
        acceptor.setDaemon(true);
        acceptor.start();
    }

    @Override
    public String name()
    {
        return name;
    }

    @Override
    public InetSocketAddress listenAddress()
    {
        return listenAddress;
    }

    @Override
    public ProtectionDomain protectionDomain()
    {
        return protectionDomain;
    }

    @Override
    public ConnectionAdmissions admissions()
    {
        return admissions;
    }

    @Override
    public VerbsConnection connect(InetSocketAddress peer, Duration deadline, ConnectionToken token)
            throws VerbsException
    {
        requireNonNull(token, "token is null");
        checkIpv4(peer, "peer address");
        if (closed.get()) {
            throw new VerbsException("RDMA device " + name + " is closed");
        }
        DisniEndpoint endpoint;
        try {
            endpoint = group.createEndpoint();
            endpoint.carry(token, group.getConnParam());
        }
        catch (IOException e) {
            throw new VerbsException("Cannot create an RDMA endpoint on " + name + ": " + e.getMessage(), e);
        }
        int timeoutMillis = Math.toIntExact(Math.max(1, Math.min(Integer.MAX_VALUE, deadline.toMillis())));
        Future<?> attempt = connector.submit(() -> {
            endpoint.connect(peer, timeoutMillis);
            return null;
        });
        try {
            attempt.get(deadline.toNanos(), TimeUnit.NANOSECONDS);
            DisniConnection connection = new DisniConnection(nextConnectionId.getAndIncrement() & 0xFFFF, peer, endpoint, settings.completionQueueSize(), connections::remove);
            connections.add(connection);
            return connection;
        }
        catch (TimeoutException e) {
            attempt.cancel(true);
            closeLater(endpoint);
            throw new VerbsException("RDMA connect from " + name + " to " + peer + " timed out after " + deadline.toMillis()
                    + " ms (address/route resolution error, rejection or unreachable peer); endpoint closed", e);
        }
        catch (ExecutionException e) {
            closeLater(endpoint);
            throw new VerbsException("RDMA connect from " + name + " to " + peer + " failed: " + DisniProbe.describe(e.getCause()), e.getCause());
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            closeLater(endpoint);
            throw new VerbsException("Interrupted while connecting to " + peer, e);
        }
        catch (IOException e) {
            closeLater(endpoint);
            throw new VerbsException("RDMA connection to " + peer + " could not poll its completion queue: " + e.getMessage(), e);
        }
    }

    private void closeLater(DisniEndpoint endpoint)
    {
        // close() is synchronized with the stuck connect's wait(), which releases the monitor; still, never block the caller on it.
        connector.execute(() -> {
            try {
                endpoint.close();
            }
            catch (IOException | RuntimeException e) {
                log.debug("Closing an abandoned RDMA endpoint on {} failed: {}", name, e.toString());
            }
            catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
    }

    /**
     * DiSNI's CM thread: {@code endpoint}'s peer disconnected (closed its queue pair, or departed).
     * An accepted endpoint is dropped and closed off that thread (close waits on CM events); an
     * outgoing one stays with its {@link DisniConnection}, whose next post fails and whose owner closes it.
     */
    private void disconnected(DisniEndpoint endpoint)
    {
        if (accepted.remove(endpoint) && !closed.get()) {
            closeLater(endpoint);
        }
    }

    @Override
    public int openEndpoints()
    {
        return connections.size() + accepted.size();
    }

    private void acceptLoop()
    {
        while (!closed.get()) {
            try {
                DisniEndpoint endpoint = server.accept();
                accepted.add(endpoint);
                if (!endpoint.isConnected()) {
                    // accept returns once the queue pair is ESTABLISHED or closed; closed here means
                    // disconnected between the accept and the add, so the callback found nothing to remove.: the callback found nothing to remove.
                    disconnected(endpoint);
                }
            }
            catch (IOException | RuntimeException e) {
                DisniEndpoint refused = group.pollRefused();
                if (refused != null && !closed.get()) {
                    // Not admitted (counted and logged by the admissions): no queue pair was made; drop its CM id and go on accepting.
                    closeLater(refused);
                    continue;
                }
                if (!closed.get()) {
                    log.warn("RDMA device {} stopped accepting connections: {}", name, e.toString());
                }
                return;
            }
        }
    }

    private static void checkIpv4(InetSocketAddress address, String what)
            throws VerbsException
    {
        requireNonNull(address, "address is null");
        if (address.isUnresolved()) {
            throw new VerbsException("The " + what + " " + address + " is unresolved; RDMA CM needs an IP address");
        }
        if (!(address.getAddress() instanceof Inet4Address)) {
            throw new VerbsException("The " + what + " " + address + " is not IPv4; DiSNI silently truncates IPv6 addresses to 4 bytes");
        }
    }

    private static void closeGroupQuietly(RdmaPassiveEndpointGroup<DisniEndpoint> group)
    {
        if (group == null) {
            return;
        }
        try {
            group.close();
        }
        catch (Exception e) {
            log.debug("Closing a DiSNI endpoint group failed: {}", e.toString());
        }
    }

    @Override
    public void close()
    {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        for (DisniConnection connection : connections) {
            connection.close();
        }
        for (DisniEndpoint endpoint : accepted) {
            try {
                endpoint.close();
            }
            catch (Exception e) {
                log.debug("Closing an accepted RDMA endpoint on {} failed: {}", name, e.toString());
            }
        }
        try {
            server.close();
        }
        catch (Exception e) {
            log.debug("Closing the RDMA server endpoint on {} failed: {}", name, e.toString());
        }
        closeGroupQuietly(group);
        connector.shutdownNow();
    }
}
