package io.synod.server.cli;

import io.synod.server.auth.AuthAdmin;
import io.synod.server.auth.AuthTable;
import io.synod.server.auth.Permission;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Spec;

/**
 * {@code synod auth user|role ...}: users, roles and key-prefix permissions of a running cluster (docs/security.md,
 * "Client authorization"). Each command is a write of the authorization table through the log, so only an
 * administrator may run it; every node enforces it once it has applied it. Exit 0 done, 1 refused or failed,
 * 2 bad usage.
 */
@Command(name = "auth", mixinStandardHelpOptions = true,
        description = {"Admin: users, roles and key-prefix permissions (etcd's model), changed through the log.",
                "A client's user is its certificate's CN. A role grants read, write or readwrite on keys starting",
                "with a prefix; a user holds roles; the built-in role 'admin' may do everything (coding changes,",
                "status with ballots, these commands). The users in the servers' auth.admin.users (default root)",
                "are administrators from the start. Every node enforces a change once it has applied it.", "",
                "Exit status: 0 done; 1 refused (permission denied, unknown user or role) or the cluster failed to"
                        + " answer; 2 bad usage."},
        subcommands = {AuthCommand.User.class, AuthCommand.Role.class, AuthCommand.ListTable.class},
        footer = {"", "Examples:",
                "  synod auth --dir /tmp/synod-cl user add alice",
                "  synod auth --dir /tmp/synod-cl role add orders-rw",
                "  synod auth --dir /tmp/synod-cl role grant orders-rw readwrite orders/",
                "  synod auth --dir /tmp/synod-cl user grant-role alice orders-rw",
                "  synod auth --connect 10.0.0.1:7100 --certs certs --user root list"})
public final class AuthCommand implements Runnable {
    @Spec
    CommandLine.Model.CommandSpec spec;

    @Mixin
    ClientTarget target;

    @Option(names = "--timeout-ms", scope = ScopeType.INHERIT, defaultValue = "10000", paramLabel = "MS",
            description = "per call, retries included (default ${DEFAULT-VALUE})")
    long timeoutMillis;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "missing operation: user, role or list (try 'synod auth --help')");
    }

    /** One change or read of the table through an administrator's client. */
    abstract static class Op implements Callable<Integer> {
        @Spec
        CommandLine.Model.CommandSpec spec;

        abstract AuthCommand root();

        abstract void run(AuthAdmin admin, PrintWriter out);

        @Override
        public Integer call() {
            CommandLine cl = spec.commandLine();
            AuthCommand auth = root();
            return auth.target.runWithTimeout(cl, auth.timeoutMillis, "synod auth", client -> {
                run(new AuthAdmin(client.blocking()), cl.getOut());
                return 0;
            });
        }
    }

    /** A group of operations (user, role): alone, it is bad usage naming its operations. */
    abstract static class Group implements Runnable {
        @ParentCommand
        AuthCommand auth;

        @Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public void run() {
            throw new CommandLine.ParameterException(spec.commandLine(), "missing operation: "
                    + String.join(", ", spec.subcommands().keySet().stream().filter(n -> !n.equals("help")).toList())
                    + " (try 'synod auth " + spec.name() + " --help')");
        }
    }

    /** An operation of a group. */
    abstract static class GroupOp extends Op {
        @ParentCommand
        Group group;

        @Override
        AuthCommand root() {
            return group.auth;
        }
    }

    @Command(name = "user", mixinStandardHelpOptions = true, description = "Add or remove users; give or take roles.",
            subcommands = {UserAdd.class, UserRemove.class, UserGrantRole.class, UserRevokeRole.class})
    static final class User extends Group {}

    abstract static class UserOp extends GroupOp {
        @CommandLine.Parameters(index = "0", paramLabel = "USER", description = "1..64 of [A-Za-z0-9_.-]")
        String name;
    }

    /** A user and a role. */
    abstract static class UserRoleOp extends UserOp {
        @CommandLine.Parameters(index = "1", paramLabel = "ROLE")
        String role;
    }

    @Command(name = "add", mixinStandardHelpOptions = true,
            description = "Define USER (a client certificate's CN); it may do nothing until given a role.")
    static final class UserAdd extends UserOp {
        @Override
        void run(AuthAdmin admin, PrintWriter out) {
            admin.addUser(name);
            out.println("OK user " + name + " added");
        }
    }

    @Command(name = "remove", mixinStandardHelpOptions = true,
            description = "Take USER's roles, then remove USER (its certificate then grants nothing).")
    static final class UserRemove extends UserOp {
        @Override
        void run(AuthAdmin admin, PrintWriter out) {
            admin.removeUser(name);
            out.println("OK user " + name + " removed");
        }
    }

    @Command(name = "grant-role", mixinStandardHelpOptions = true,
            description = "Give USER the role ROLE (an existing role, or the built-in admin).")
    static final class UserGrantRole extends UserRoleOp {
        @Override
        void run(AuthAdmin admin, PrintWriter out) {
            admin.grantRole(name, role);
            out.println("OK user " + name + " holds role " + role);
        }
    }

    @Command(name = "revoke-role", mixinStandardHelpOptions = true, description = "Take the role ROLE from USER.")
    static final class UserRevokeRole extends UserRoleOp {
        @Override
        void run(AuthAdmin admin, PrintWriter out) {
            admin.revokeRole(name, role);
            out.println("OK user " + name + " no longer holds role " + role);
        }
    }

    @Command(name = "role", mixinStandardHelpOptions = true, description = "Add roles; grant or revoke their permissions.",
            subcommands = {RoleAdd.class, RoleGrant.class, RoleRevoke.class})
    static final class Role extends Group {}

    abstract static class RoleOp extends GroupOp {
        @CommandLine.Parameters(index = "0", paramLabel = "ROLE", description = "1..64 of [A-Za-z0-9_.-] (not admin)")
        String role;
    }

    @Command(name = "add", mixinStandardHelpOptions = true, description = "Define ROLE, granting nothing yet.")
    static final class RoleAdd extends RoleOp {
        @Override
        void run(AuthAdmin admin, PrintWriter out) {
            admin.addRole(role);
            out.println("OK role " + role + " added");
        }
    }

    @Command(name = "grant", mixinStandardHelpOptions = true,
            description = {"Let ROLE read, write or readwrite every key starting with PREFIX ('' : every key).",
                    "A scan needs one prefix holding its whole range; writes include deletes and compare-and-sets."})
    static final class RoleGrant extends RoleOp {
        @CommandLine.Parameters(index = "1", paramLabel = "PERMISSION", description = "read, write or readwrite")
        String permission;

        @CommandLine.Parameters(index = "2", paramLabel = "PREFIX")
        String prefix;

        @Override
        public Integer call() {
            try {
                Permission.parse(permission);
            } catch (IllegalArgumentException e) {
                throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
            }
            return super.call();
        }

        @Override
        void run(AuthAdmin admin, PrintWriter out) {
            admin.grant(role, Permission.parse(permission), prefix);
            out.println("OK role " + role + " grants " + permission + " on '" + prefix + "'");
        }
    }

    @Command(name = "revoke", mixinStandardHelpOptions = true, description = "Take ROLE's permission on PREFIX away.")
    static final class RoleRevoke extends RoleOp {
        @CommandLine.Parameters(index = "1", paramLabel = "PREFIX")
        String prefix;

        @Override
        void run(AuthAdmin admin, PrintWriter out) {
            admin.revoke(role, prefix);
            out.println("OK role " + role + " no longer grants anything on '" + prefix + "'");
        }
    }

    @Command(name = "list", mixinStandardHelpOptions = true,
            description = "Print every user with its roles and grants (the table as its group applied it).")
    static final class ListTable extends Op {
        @ParentCommand
        AuthCommand parent;

        @Override
        AuthCommand root() {
            return parent;
        }

        @Override
        void run(AuthAdmin admin, PrintWriter out) {
            AuthTable table = admin.table();
            for (String user : table.users()) {
                out.println("user " + user + (table.isAdmin(user) ? " (admin)" : "") + ": "
                        + (table.grants(user).isEmpty() ? "no grants" : String.join(", ", table.grants(user).stream()
                                .map(g -> g.permission().text() + " '" + g.prefix() + "'").sorted().toList())));
            }
        }
    }
}
