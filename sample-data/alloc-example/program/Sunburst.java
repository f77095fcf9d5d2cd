import java.util.ArrayList;
import java.util.List;

/**
 * A small sunburst layout, after the example of section III-C of
 * "Effective Visualization of Object Allocation Sites": every input element
 * becomes an Element with an ArcShape, and building an element wraps its
 * model in a throw-away Group (version 1.0). Version 1.1 (-Dfixed=true)
 * builds the element directly, so the Groups disappear from the tree.
 */
public class Sunburst {
    static final boolean FIXED = Boolean.getBoolean("fixed");

    static class Node {
        final int id;
        final List<Node> children = new ArrayList<>();
        Node(int id) { this.id = id; }
    }

    static class ArcShape {
        final double inner, outer, start, end;
        ArcShape(double inner, double outer, double start, double end) {
            this.inner = inner; this.outer = outer; this.start = start; this.end = end;
        }
    }

    static class Element {
        final Object model;
        final ArcShape shape;
        final String label;
        Element(Object model, ArcShape shape, String label) {
            this.model = model; this.shape = shape; this.label = label;
        }
    }

    static class Group {
        final List<Object> items = new ArrayList<>();
        static Group with(Object o) { Group g = new Group(); g.items.add(o); return g; }
    }

    static class ShapeBuilder {
        int made;

        Element elementOn(Node node, int depth, double start, double end) {
            if (FIXED) {
                return shapeOn(node, depth, start, end);
            }
            // Builds a group of one only to take its first element back.
            return elementsOn(Group.with(node), depth, start, end).get(0);
        }

        List<Element> elementsOn(Group models, int depth, double start, double end) {
            Group group = new Group();
            List<Element> out = new ArrayList<>();
            for (Object m : models.items) {
                Element e = shapeOn((Node) m, depth, start, end);
                group.items.add(e);
                out.add(e);
            }
            return out;
        }

        Element shapeOn(Node node, int depth, double start, double end) {
            made++;
            ArcShape arc = new ArcShape(depth * 10.0, depth * 10.0 + 9.0, start, end);
            String label = new StringBuilder("node ").append(node.id).append(" at ").append(depth).toString();
            return new Element(node, arc, label);
        }
    }

    static class TreeBuilder {
        final ShapeBuilder shapes = new ShapeBuilder();
        final List<Element> elements = new ArrayList<>();

        void createElements(Node tree, int depth, double start, double end) {
            elements.add(shapes.elementOn(tree, depth, start, end));
            double step = (end - start) / Math.max(1, tree.children.size());
            double at = start;
            for (Node child : tree.children) {
                createElements(child, depth + 1, at, at + step);
                at += step;
            }
        }
    }

    static Node input(int size) {
        Node root = new Node(0);
        List<Node> all = new ArrayList<>();
        all.add(root);
        for (int i = 1; i < size; i++) {
            Node n = new Node(i);
            all.get((i - 1) / 3).children.add(n);
            all.add(n);
        }
        return root;
    }

    static double[] coordinates(List<Element> elements) {
        double[] xy = new double[elements.size() * 2];
        for (int i = 0; i < elements.size(); i++) {
            ArcShape a = elements.get(i).shape;
            xy[2 * i] = Math.cos((a.start + a.end) / 2) * a.outer;
            xy[2 * i + 1] = Math.sin((a.start + a.end) / 2) * a.outer;
        }
        return xy;
    }

    public static void main(String[] args) {
        long until = System.nanoTime() + Long.parseLong(args.length > 0 ? args[0] : "3000") * 1_000_000L;
        double checksum = 0;
        int rounds = 0;
        while (System.nanoTime() < until) {
            Node tree = input(382);
            TreeBuilder builder = new TreeBuilder();
            builder.createElements(tree, 0, 0, 2 * Math.PI);
            checksum += coordinates(builder.elements)[1];
            rounds++;
        }
        System.out.println(rounds + " rounds, checksum " + checksum);
    }
}
