package io.synod.coordination;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.ACLProvider;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ACLs of a cluster's znodes for a session with a digest identity (docs/security.md, "A ZooKeeper
 * client"): {@code /synod/<cluster>} and everything below it are writable (create, write, delete, admin)
 * by that identity only and readable by anyone, since clients discover members and the shard map
 * there. {@code /synod}, shared by every cluster of the ensemble, also lets anyone create, so that a
 * cluster with another identity can be created beside this one.
 *
 * <p>It also decides what happens when a node meets a cluster that already exists: created without
 * ACLs (by a version before them, or by a node without an identity) and still open to anyone, an
 * authenticated node secures it (sets the ACLs on every znode, root last); protected by another
 * identity, or protected while this node has none, the node is refused with one line naming the fix.
 */
final class ClusterAcls implements ACLProvider {
    private static final Logger log = LoggerFactory.getLogger(ClusterAcls.class);
    static final String PARENT = "/synod";

    private final List<ACL> cluster;
    private final List<ACL> parent;

    ClusterAcls(ZooKeeperAccess access) {
        this.cluster = access.clusterAcl();
        List<ACL> p = new ArrayList<>();
        p.add(new ACL(ZooDefs.Perms.ALL, access.id()));
        p.add(new ACL(ZooDefs.Perms.READ | ZooDefs.Perms.CREATE, ZooDefs.Ids.ANYONE_ID_UNSAFE));
        this.parent = Collections.unmodifiableList(p); // not List.copyOf: see ZooKeeperAccess.clusterAcl
    }

    @Override
    public List<ACL> getDefaultAcl() {
        return cluster;
    }

    @Override
    public List<ACL> getAclForPath(String path) {
        return PARENT.equals(path) ? parent : cluster;
    }

    /**
     * Checks the ACL of an existing cluster root against {@code access}: an open root is secured by an
     * authenticated node (every znode below it first), an open root stays open for a node without an
     * identity, and a root protected by an identity this node lacks refuses the node.
     *
     * @throws ClusterAclException one line naming the identities and the configuration keys to set
     */
    static void checkExisting(CuratorFramework client, ClusterPaths paths, ZooKeeperAccess access) throws Exception {
        List<ACL> acl = client.getACL().forPath(paths.root());
        boolean openToAnyone = acl.stream().anyMatch(a -> a.getId().equals(ZooDefs.Ids.ANYONE_ID_UNSAFE)
                && (a.getPerms() & ~ZooDefs.Perms.READ) != 0);
        if (!access.authenticated()) {
            if (!openToAnyone) {
                throw new ClusterAclException("cluster '" + paths.cluster() + "' in ZooKeeper is writable only by "
                        + writers(acl) + " and this node has no ZooKeeper identity: set zookeeper.auth.secret.file "
                        + "(and zookeeper.auth.user) to the ones its servers use");
            }
            return;
        }
        boolean ours = acl.stream().anyMatch(a -> a.getId().equals(access.id()) && a.getPerms() == ZooDefs.Perms.ALL);
        if (ours && !openToAnyone) {
            return;
        }
        boolean anyoneAdmin = acl.stream().anyMatch(a -> a.getId().equals(ZooDefs.Ids.ANYONE_ID_UNSAFE)
                && (a.getPerms() & ZooDefs.Perms.ADMIN) != 0);
        if (!ours && !anyoneAdmin) {
            throw new ClusterAclException("cluster '" + paths.cluster() + "' in ZooKeeper is protected by "
                    + writers(acl) + ", not by this node's identity digest:" + access.user()
                    + ": set zookeeper.auth.user and zookeeper.auth.secret.file to the ones its servers use");
        }
        int secured = secure(client, paths.root(), access.clusterAcl());
        log.warn("cluster '{}' was open to any ZooKeeper client: set ACLs on its {} znodes (write: digest:{}, read: anyone)",
                paths.cluster(), secured, access.user());
    }

    /** Sets {@code acl} on {@code path} and every znode below it, children first; returns how many were set. */
    private static int secure(CuratorFramework client, String path, List<ACL> acl) throws Exception {
        int count = 0;
        List<String> children;
        try {
            children = client.getChildren().forPath(path);
        } catch (KeeperException.NoNodeException gone) {
            return 0; // an ephemeral znode (member, election) that went away meanwhile
        }
        for (String child : children) {
            count += secure(client, path + "/" + child, acl);
        }
        try {
            client.setACL().withVersion(-1).withACL(acl).forPath(path);
            return count + 1;
        } catch (KeeperException.NoNodeException gone) {
            return count;
        }
    }

    /** The identities with more than read on a znode, without digests (ZooKeeper hides them from non-admins too). */
    private static String writers(List<ACL> acl) {
        List<String> ids = new ArrayList<>();
        for (ACL a : acl) {
            if ((a.getPerms() & ~ZooDefs.Perms.READ) != 0) {
                ids.add(name(a.getId()));
            }
        }
        return ids.isEmpty() ? "nobody" : String.join(", ", ids);
    }

    private static String name(Id id) {
        String value = id.getId();
        int colon = value.indexOf(':');
        return id.getScheme() + ":" + (id.getScheme().equals("digest") && colon >= 0 ? value.substring(0, colon) : value);
    }
}
