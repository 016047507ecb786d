# Loads animtune's Godot export with Godot's own code and prints what Godot read, as JSON.
#
#   godot --headless --script tools/godot-check/check.gd -- FILE.tres [--glb MODEL.glb]
#       [--travel FROM,TO] [--condition NAME] [--auto FROM,TO,NAME=VALUE ...] [--layered STATE ...]
#
# FILE.tres goes through ResourceLoader.load (Godot's text resource parser). Every error Godot
# logs while the check runs (parse errors included) is caught by a Logger and listed in
# "errors"; the exit status is 1 when there is any. With --glb the model is loaded with the
# runtime GLTFDocument (the code Godot's glTF importer runs) and every AnimationNodeAnimation's
# animation must be one its AnimationPlayer has. With --travel too, an AnimationTree plays the
# machine on that player: it starts in FROM, travels to TO, and is advanced past the fade; the
# playback's current node and the fade's length as Godot ran it are reported. With --condition,
# the condition is then set (and cleared once taken, as a game clears a trigger) and the tree
# advanced until the state it led to ends: the nodes after both are reported. Each --auto starts
# the tree in FROM with the expression input NAME (a property of the tree's
# advance_expression_base_node) at VALUE and advances until it reaches TO (at most half a second),
# reporting where it is: Godot evaluating the advance expressions as animtune meant them. Every
# advance_expression is also parsed with Godot's Expression. A layered state (an
# AnimationNodeBlendTree) reports its nodes (class, animation, filters, the blend_amount metadata),
# its connections, and, with --glb, the bone each filter path names in the Skeleton3D the
# GLTFDocument built (-1: none). Each --layered STATE plays that state's blend tree alone in an
# AnimationTree (each mix node's blend_amount set from its metadata, as a game does) for 20 frames,
# and the base clip alone and the last layer's clip alone the same way: per bone, the angle in
# radians between the blend tree's rotation and each of the two; and whether each blend_amount
# is a parameter of a tree playing the whole machine at parameters/STATE/mixN/blend_amount. Run by tests/godot.rs (.tools/godot/godot,
# installed by scripts/install-godot.sh).
extends SceneTree


# The advance expressions' inputs: properties read through _get.
class Inputs:
	extends Node
	var values := {}

	func _get(property: StringName) -> Variant:
		return values.get(String(property))


class Catch:
	extends Logger
	var errors: Array[String] = []

	func _log_error(function: String, file: String, line: int, code: String, rationale: String,
			_editor_notify: bool, error_type: int, _script_backtraces: Array[ScriptBacktrace]) -> void:
		# error_type 1 is a warning (ERROR_TYPE_WARNING); everything else fails the check.
		if error_type == 1:
			return
		var what := rationale if rationale != "" else code
		errors.append("%s (%s:%d in %s)" % [what, file, line, function])

	func _log_message(_message: String, _error: bool) -> void:
		pass


var catch := Catch.new()
# The resource as ResourceLoader.load returned it (null when it could not).
var machine: Resource = null
# The character GLTFDocument built (with --glb), under the root: the AnimationTree's root node.
var scene: Node = null


# The file is loaded here and checked in the first frame: Godot finishes some of a loaded
# resource's set-up in deferred calls (a 2-D blend space triangulates its points), as a game
# sees it a frame later.
func _initialize() -> void:
	OS.add_logger(catch)
	var args := OS.get_cmdline_user_args()
	if args.size() >= 1:
		machine = ResourceLoader.load(args[0], "", ResourceLoader.CACHE_MODE_IGNORE)


func _process(_delta: float) -> bool:
	var report := check(OS.get_cmdline_user_args())
	report["errors"] = catch.errors
	print(JSON.stringify(report, "  ", false))
	quit(1 if catch.errors.size() > 0 else 0)
	return true


func check(args: PackedStringArray) -> Dictionary:
	var report := {"godot": Engine.get_version_info()["string"]}
	if args.size() < 1:
		push_error("usage: check.gd -- FILE.tres [--glb MODEL.glb] [--travel FROM,TO] [--condition NAME] [--auto FROM,TO,NAME=VALUE]")
		return report
	var glb := ""
	var travel := PackedStringArray()
	var condition := ""
	var autos := []
	var layered := []
	var i := 1
	while i < args.size():
		if args[i] == "--glb" and i + 1 < args.size():
			glb = args[i + 1]
		elif args[i] == "--travel" and i + 1 < args.size():
			travel = args[i + 1].split(",")
		elif args[i] == "--condition" and i + 1 < args.size():
			condition = args[i + 1]
		elif args[i] == "--auto" and i + 1 < args.size():
			autos.append(args[i + 1])
		elif args[i] == "--layered" and i + 1 < args.size():
			layered.append(args[i + 1])
		else:
			push_error("unknown argument %s" % args[i])
		i += 2
	if machine == null:
		push_error("ResourceLoader.load returned null for %s" % args[0])
		return report
	report["class"] = machine.get_class()
	if not machine is AnimationNodeStateMachine:
		return report
	if glb != "":
		scene = load_scene(glb)
	report["states"] = states(machine)
	report["transitions"] = transitions(machine)
	if scene != null:
		report["glb"] = model(machine, travel, condition, autos, layered)
	return report


func states(machine: AnimationNodeStateMachine) -> Array:
	var out := []
	for name in machine.get_node_list():
		var node: AnimationNode = machine.get_node(name)
		var state := {"name": String(name), "class": node.get_class()}
		if node is AnimationNodeAnimation:
			state["animation"] = String(node.animation)
		elif node is AnimationNodeBlendSpace1D or node is AnimationNodeBlendSpace2D:
			var points := []
			for p in node.get_blend_point_count():
				var point_node = node.get_blend_point_node(p)
				var pos = node.get_blend_point_position(p)
				points.append({
					"class": point_node.get_class(),
					"animation": String(point_node.animation) if point_node is AnimationNodeAnimation else "",
					"pos": [pos.x, pos.y] if pos is Vector2 else [pos],
				})
			state["points"] = points
			if node is AnimationNodeBlendSpace2D:
				state["triangles"] = node.get_triangle_count()
			state["sync"] = node.sync
			var lo = node.min_space
			var hi = node.max_space
			state["min_space"] = [lo.x, lo.y] if lo is Vector2 else [lo]
			state["max_space"] = [hi.x, hi.y] if hi is Vector2 else [hi]
		elif node is AnimationNodeBlendTree:
			state["nodes"] = tree_nodes(node)
			var connections := []
			var list: Array = node.get("node_connections")
			for c in range(0, list.size() - 2, 3):
				connections.append("%s:%d:%s" % [list[c], list[c + 1], list[c + 2]])
			state["connections"] = connections
		out.append(state)
	return out


# A blend tree's nodes by name (Godot's `output` included): class, animation, filters with the
# bone each names, and the blend_amount metadata.
func tree_nodes(tree: AnimationNodeBlendTree) -> Array:
	var out := []
	for property in tree.get_property_list():
		var key: String = property["name"]
		if not (key.begins_with("nodes/") and key.ends_with("/node")):
			continue
		var name := key.trim_prefix("nodes/").trim_suffix("/node")
		var node: AnimationNode = tree.get_node(name)
		var entry := {"name": name, "class": node.get_class(), "filter_enabled": node.filter_enabled}
		if node is AnimationNodeAnimation:
			entry["animation"] = String(node.animation)
		var filters := []
		for path in node.get("filters"):
			filters.append({"path": String(path), "bone": bone_of(path)})
		entry["filters"] = filters
		entry["blend_amount"] = node.get_meta("blend_amount") if node.has_meta("blend_amount") else null
		out.append(entry)
	return out


# The index of the bone a filter path names in the character's Skeleton3D (-1: no such bone or
# node, or no character loaded): the node part from the AnimationTree's root node, the bone the
# subname.
func bone_of(path: NodePath) -> int:
	if scene == null:
		return -1
	var node := scene.get_node_or_null(NodePath(path.get_concatenated_names()))
	if not node is Skeleton3D:
		return -1
	return node.find_bone(path.get_concatenated_subnames())


func transitions(machine: AnimationNodeStateMachine) -> Array:
	var out := []
	for t in machine.get_transition_count():
		var transition := machine.get_transition(t)
		var curve = transition.xfade_curve
		var parses = null
		if transition.advance_expression != "":
			parses = Expression.new().parse(transition.advance_expression) == OK
		var points = null
		if curve is Curve:
			points = []
			for p in curve.point_count:
				var pos: Vector2 = curve.get_point_position(p)
				points.append([pos.x, pos.y, curve.get_point_left_tangent(p), curve.get_point_right_tangent(p)])
		out.append({
			"from": String(machine.get_transition_from(t)),
			"to": String(machine.get_transition_to(t)),
			"xfade_time": transition.xfade_time,
			"switch_mode": transition.switch_mode,
			"advance_mode": transition.advance_mode,
			"advance_condition": String(transition.advance_condition),
			"advance_expression": transition.advance_expression,
			"expression_parses": parses,
			"priority": transition.priority,
			"curve": points,
			# Curve.sample at the fade's middle, as the blend reads it (null: linear).
			"curve_at_half": curve.sample(0.5) if curve is Curve else null,
		})
	return out


# The model through the runtime GLTFDocument, added under the root (null when it cannot be loaded).
func load_scene(path: String) -> Node:
	var document := GLTFDocument.new()
	var state := GLTFState.new()
	var err := document.append_from_file(path, state)
	if err != OK:
		push_error("GLTFDocument.append_from_file(%s): %s" % [path, error_string(err)])
		return null
	var built: Node = document.generate_scene(state)
	if built == null:
		push_error("GLTFDocument.generate_scene returned null")
		return null
	# The editor build's GLTFDocument makes ImporterMeshInstance3D nodes; Godot's scene importer
	# turns them into MeshInstance3D, which the blend shape tracks need. Do the same.
	for node in built.find_children("*", "ImporterMeshInstance3D", true, false):
		var mesh_instance := MeshInstance3D.new()
		mesh_instance.name = node.name
		mesh_instance.transform = node.transform
		mesh_instance.mesh = node.mesh.get_mesh()
		mesh_instance.skin = node.skin
		mesh_instance.skeleton = node.skeleton_path
		node.replace_by(mesh_instance)
		node.free()
	root.add_child(built)
	return built


# The model's animations, the machine's clip names it lacks, and (with `travel`) an AnimationTree
# playing the machine on its AnimationPlayer.
func model(machine: AnimationNodeStateMachine, travel: PackedStringArray, condition: String, autos: Array,
		layered: Array) -> Dictionary:
	var out := {}
	var path := String(scene.name)
	var players := scene.find_children("*", "AnimationPlayer", true, false)
	if players.is_empty():
		push_error("no AnimationPlayer in %s" % path)
		return out
	var player: AnimationPlayer = players[0]
	var animations := []
	var lengths := {}
	for name in player.get_animation_list():
		animations.append(String(name))
		lengths[String(name)] = player.get_animation(name).length
	out["animations"] = animations
	out["lengths_secs"] = lengths
	var missing := []
	for name in clip_names(machine):
		if not player.has_animation(name):
			missing.append(name)
	out["missing"] = missing
	if travel.size() == 2:
		out["travel"] = play(machine, player, travel[0], travel[1], condition)
	var auto_runs := []
	for auto in autos:
		auto_runs.append(auto_run(machine, player, auto))
	out["auto"] = auto_runs
	var layered_runs := {}
	for name in layered:
		layered_runs[name] = layered_play(machine, player, name)
	out["layered"] = layered_runs
	return out


func clip_names(machine: AnimationNodeStateMachine) -> Array:
	var names := []
	for name in machine.get_node_list():
		var node = machine.get_node(name)
		if node is AnimationNodeAnimation:
			names.append(String(node.animation))
		elif node is AnimationNodeBlendSpace1D or node is AnimationNodeBlendSpace2D:
			for p in node.get_blend_point_count():
				var point = node.get_blend_point_node(p)
				if point is AnimationNodeAnimation:
					names.append(String(point.animation))
		elif node is AnimationNodeBlendTree:
			for entry in tree_nodes(node):
				if entry.has("animation"):
					names.append(entry["animation"])
	return names


# An AnimationTree on `player`'s libraries: start in `from`, travel to `to`, advance until the
# fade ends; then, with `condition`, set it and advance until the state it led to has ended.
func play(machine: AnimationNodeStateMachine, player: AnimationPlayer, from: String, to: String,
		condition: String) -> Dictionary:
	var tree := animation_tree(machine, player)
	var playback: AnimationNodeStateMachinePlayback = tree.get("parameters/playback")
	var step := 1.0 / 60.0
	playback.start(from)
	tree.advance(step)
	var out := {"start": String(playback.get_current_node())}
	playback.travel(to)
	tree.advance(step)
	out["after_one_step"] = String(playback.get_current_node())
	out["fading_from"] = String(playback.get_fading_from_node())
	# Frames until the fade has ended (at most two seconds).
	var fade_frames := 1
	while playback.get_fading_from_node() != &"" and fade_frames < 120:
		tree.advance(step)
		fade_frames += 1
	out["fade_secs"] = fade_frames * step
	out["after_fade"] = String(playback.get_current_node())
	if condition != "":
		tree.set("parameters/conditions/" + condition, true)
		tree.advance(step)
		out["after_condition"] = String(playback.get_current_node())
		tree.set("parameters/conditions/" + condition, false)
		var entered := playback.get_current_node()
		var frames := 0
		while playback.get_current_node() == entered and frames < 600:
			tree.advance(step)
			frames += 1
		out["after_that_state"] = String(playback.get_current_node())
		out["that_state_secs"] = frames * step
	tree.queue_free()
	return out


# An AnimationTree playing `machine` on `player`'s libraries, advanced by hand, its advance
# expressions reading an Inputs node.
func animation_tree(machine: AnimationRootNode, player: AnimationPlayer) -> AnimationTree:
	var tree := AnimationTree.new()
	player.get_parent().add_child(tree)
	tree.root_node = tree.get_path_to(player.get_node(player.root_node))
	for library in player.get_animation_library_list():
		tree.add_animation_library(library, player.get_animation_library(library))
	tree.callback_mode_process = AnimationMixer.ANIMATION_CALLBACK_MODE_PROCESS_MANUAL
	var inputs := Inputs.new()
	inputs.name = "Inputs"
	tree.add_child(inputs)
	tree.advance_expression_base_node = NodePath("Inputs")
	tree.tree_root = machine
	tree.active = true
	return tree


# `spec` is FROM,TO,NAME=VALUE: start in FROM with NAME at VALUE; advance until TO (at most half
# a second); where the playback is then, and after how long.
func auto_run(machine: AnimationNodeStateMachine, player: AnimationPlayer, spec: String) -> Dictionary:
	var parts := spec.split(",")
	if parts.size() != 3 or not "=" in parts[2]:
		push_error("--auto wants FROM,TO,NAME=VALUE, not %s" % spec)
		return {}
	var tree := animation_tree(machine, player)
	var inputs: Inputs = tree.get_node("Inputs")
	var playback: AnimationNodeStateMachinePlayback = tree.get("parameters/playback")
	var step := 1.0 / 60.0
	playback.start(parts[0])
	tree.advance(step)
	var input := parts[2].split("=")
	var value = str_to_var(input[1])
	inputs.values[input[0]] = value
	# A bool is also the tree's condition of that name, where the machine has one.
	if value is bool and tree.get("parameters/conditions/" + input[0]) != null:
		tree.set("parameters/conditions/" + input[0], value)
	var frames := 0
	while playback.get_current_node() != StringName(parts[1]) and frames < 30:
		tree.advance(step)
		frames += 1
	var out := {"from": parts[0], "input": input[0], "value": value, "current": String(playback.get_current_node()),
		"secs": frames * step}
	tree.queue_free()
	return out


# Play layered state `name`'s blend tree, its base clip alone and its last layer's clip alone, each
# in its own AnimationTree for 20 frames from the bones' rest pose; per bone, the angles (radians)
# between the blend tree's rotation and the base's and the layer's.
func layered_play(machine: AnimationNodeStateMachine, player: AnimationPlayer, name: String) -> Dictionary:
	if not machine.has_node(name) or not machine.get_node(name) is AnimationNodeBlendTree:
		push_error("--layered %s: not a blend-tree state" % name)
		return {}
	var blend: AnimationNodeBlendTree = machine.get_node(name)
	var layer := ""
	var last_mix := ""
	for entry in tree_nodes(blend):
		if entry["name"].begins_with("layer") and entry["name"] > layer:
			layer = entry["name"]
			last_mix = "mix" + layer.trim_prefix("layer")
	var skeleton: Skeleton3D = scene.find_children("*", "Skeleton3D", true, false)[0]
	var amounts := {}
	for entry in tree_nodes(blend):
		if entry["blend_amount"] != null:
			amounts["parameters/%s/blend_amount" % entry["name"]] = entry["blend_amount"]
	var mixed := pose_after(blend, player, skeleton, amounts)
	var base := AnimationNodeAnimation.new()
	base.animation = blend.get_node("base").animation
	var over := AnimationNodeAnimation.new()
	over.animation = blend.get_node(layer).animation
	var base_pose := pose_after(base, player, skeleton, {})
	var layer_pose := pose_after(over, player, skeleton, {})
	# The same parameters as a game sets them on the tree playing the whole machine.
	var machine_tree := animation_tree(machine, player)
	var machine_parameters := {}
	for key in amounts:
		var path: String = key.replace("parameters/", "parameters/%s/" % name)
		machine_parameters[path] = machine_tree.get(path) != null
	machine_tree.get_parent().remove_child(machine_tree)
	machine_tree.free()
	var bones := {}
	for b in skeleton.get_bone_count():
		bones[skeleton.get_bone_name(b)] = {"to_base": mixed[b].angle_to(base_pose[b]),
			"to_layer": mixed[b].angle_to(layer_pose[b])}
	return {"layer": layer, "base_clip": String(base.animation), "layer_clip": String(over.animation),
		"frames": 20, "bones": bones, "machine_parameters": machine_parameters}


# Every bone's rotation after `node` has played 20 frames at 60 Hz on `player`'s animations from
# the rest pose, with the tree parameters `parameters` set.
func pose_after(node: AnimationRootNode, player: AnimationPlayer, skeleton: Skeleton3D, parameters: Dictionary) -> Array:
	skeleton.reset_bone_poses()
	var tree := animation_tree(node, player)
	for key in parameters:
		tree.set(key, parameters[key])
	for frame in 20:
		tree.advance(1.0 / 60.0)
	var out := []
	for b in skeleton.get_bone_count():
		out.append(skeleton.get_bone_pose_rotation(b))
	tree.get_parent().remove_child(tree)
	tree.free()
	return out
