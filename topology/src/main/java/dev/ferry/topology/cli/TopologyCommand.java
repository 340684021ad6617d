package dev.ferry.topology.cli;

import dev.ferry.common.ErrorCategory;
import dev.ferry.common.FerryException;
import dev.ferry.conf.MapConfigSource;
import dev.ferry.topology.file.TopologyFileReader;
import dev.ferry.topology.model.ClusterTopology;
import dev.ferry.topology.model.FilePlacement;
import dev.ferry.topology.model.NodeTopology;
import dev.ferry.topology.model.PeerMemory;
import dev.ferry.topology.probe.MachineProber;
import dev.ferry.topology.probe.ProbeOptions;
import dev.ferry.topology.probe.mount.FilePlacementProbe;
import dev.ferry.topology.report.DecisionReport;
import dev.ferry.topology.report.JsonReport;
import dev.ferry.topology.report.SummaryReport;
import dev.ferry.topology.report.SvgRenderer;
import dev.ferry.topology.report.TextReport;
import dev.ferry.topology.route.RoutePolicy;
import dev.ferry.topology.route.RoutePolicyConfig;
import dev.ferry.topology.smi.NvidiaSmiTopology;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * {@code ferry topology}: shows a machine's (or a capture's, or a topology file's) devices and a summary of its
 * route decisions, or with {@code --verbose} every decision with its reason. Exit codes: 0 done (also when no GPU is seen), 1 bad input or failure, 2 bad arguments.
 */
public final class TopologyCommand
{
    public static final int OK = 0;
    public static final int FAILED = 1;
    public static final int USAGE = 2;

    private TopologyCommand() {}

    public static void main(String[] args)
    {
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        PrintStream err = new PrintStream(System.err, true, StandardCharsets.UTF_8);
        System.exit(run(Arrays.asList(args), out, err));
    }

    public static int run(List<String> args, PrintStream out, PrintStream err)
    {
        return run(args, out, err, ProbeOptions.localMachine(), FilePlacementProbe.localMachine());
    }

    /**
     * As {@link #run(List, PrintStream, PrintStream)}, with "this machine" being what {@code machine} and
     * {@code files} look at (tests pass fixture trees and mount tables).
     */
    static int run(List<String> args, PrintStream out, PrintStream err, ProbeOptions machine, FilePlacementProbe files)
    {
        TopologyArguments arguments;
        RoutePolicy policy;
        try {
            arguments = TopologyArguments.parse(args);
            policy = new RoutePolicy(RoutePolicyConfig.from(new MapConfigSource(arguments.conf())));
        }
        catch (IllegalArgumentException | FerryException e) {
            err.println("ferry topology: " + e.getMessage());
            err.print(TopologyArguments.USAGE);
            return USAGE;
        }
        if (arguments.help()) {
            out.print(TopologyArguments.USAGE);
            return OK;
        }
        try {
            ClusterTopology cluster = overridePeerMemory(load(arguments, machine), arguments);
            Optional<FilePlacement> file = arguments.file().map(path -> files.locate(path).placement());
            DecisionReport report = DecisionReport.decide(cluster, policy, file);
            if (arguments.svg().isPresent()) {
                writeSvg(arguments.svg().get(), report);
            }
            out.print(arguments.json() ? JsonReport.render(report) + "\n" : arguments.verbose() ? TextReport.render(report)
                    : SummaryReport.render(report) + "(--verbose prints the device matrix and every decision with its reason)\n");
            out.flush();
            return OK;
        }
        catch (FerryException e) {
            err.println("ferry topology: " + (e.category() == ErrorCategory.USER_ERROR ? "" : e.category() + ": ") + e.getMessage());
            return FAILED;
        }
    }

    private static void writeSvg(Path target, DecisionReport report)
    {
        try {
            Files.writeString(target, SvgRenderer.render(report), StandardCharsets.UTF_8);
        }
        catch (IOException | InvalidPathException e) {
            String why = e instanceof NoSuchFileException ? "no such directory" : e instanceof AccessDeniedException ? "permission denied"
                    : e instanceof FileSystemException fs && fs.getReason() != null ? fs.getReason() : e.toString();
            throw new FerryException(ErrorCategory.USER_ERROR, "Cannot write the SVG drawing to " + target.toAbsolutePath() + ": " + why, e);
        }
    }

    private static ClusterTopology load(TopologyArguments arguments, ProbeOptions machine)
    {
        if (arguments.nvidiaSmi().isPresent()) {
            return ClusterTopology.single(NvidiaSmiTopology.read(arguments.nvidiaSmi().get()));
        }
        if (arguments.topology().isPresent()) {
            return TopologyFileReader.load(arguments.topology().get());
        }
        ProbeOptions options = arguments.sysfs().map(ProbeOptions::sysfsTree).orElse(machine);
        return ClusterTopology.single(MachineProber.probe(options));
    }

    private static ClusterTopology overridePeerMemory(ClusterTopology cluster, TopologyArguments arguments)
    {
        if (arguments.peerMemory().isEmpty()) {
            return cluster;
        }
        PeerMemory peerMemory = arguments.peerMemory().get()
                ? PeerMemory.present("user-stated", "--peermem yes")
                : PeerMemory.absent("--peermem no");
        List<NodeTopology> nodes = new ArrayList<>();
        for (NodeTopology node : cluster.nodes()) {
            nodes.add(node.toBuilder().kernelFacts(node.kernelFacts().withPeerMemory(peerMemory)).build());
        }
        return new ClusterTopology(cluster.name(), nodes);
    }
}
